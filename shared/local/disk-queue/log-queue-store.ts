import { randomUUID } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Clock } from '../../clock.ts';
import { lockDirectory } from '../directory-lock.ts';
import { withLazyMd5 } from './lazy-md5.ts';
import { groupKeyOf, MessageTable } from './message-table.ts';
import type { QueueCounts, ReceivedMessage, StoredMessage } from './queue-messages.ts';
import {
  decodeSent,
  RecordWriter,
  readRecords,
  type SentHeader,
  sentBodyStart,
} from './queue-records.ts';
import { QueueSegment, segmentNumbers } from './queue-segment.ts';
import { type RecordPlace, SegmentReader } from './segment-reader.ts';
import { VisibilityHeap } from './visibility-heap.ts';

/** A log file is closed for appends once it reaches this size, and a new one started. */
const SEGMENT_BYTES = 8 * 1024 * 1024;
/**
 * The oldest file, once two newer ones exist, is copied forward when its messages not yet
 * deleted take no more than this share of it: one message delayed for hours must not keep
 * every file written after it.
 */
const COMPACT_LIVE_SHARE = 1 / 8;

/**
 * One queue's messages, kept in an append-only log of files under `dir` (one directory a
 * queue): a send appends its messages' records (header and body), a delete appends the
 * deleted messages' numbers; a file whose messages are all deleted is removed, oldest first.
 * What decides the order of receives (when each message becomes visible, its receipt) lives
 * in memory, mostly in typed arrays (MessageTable, VisibilityHeap: about 93 bytes a message):
 * a receive takes the earliest visible messages from a heap and reads their records back from
 * the files, so bodies of a backlog cost disk, not resident memory. One process opens a data
 * dir at a time: at open the log is read through and every message not deleted is visible
 * again from when it was sent (in flight in a process that is gone, waiting out its visibility
 * timeout would only delay it), in its first place, ahead of messages sent after it. Receives
 * are noted in the log too (a message's receive count survives a restart).
 * @example const store = new LogQueueStore(join(dataDir, 'queue', name), name, clock); store.open();
 */
export class LogQueueStore {
  private readonly messages = new MessageTable<QueueSegment>();
  private readonly heap = new VisibilityHeap();
  private segments: QueueSegment[] = [];
  private nextSeq = 0;
  private receipts = 0;
  private readonly writer = new RecordWriter();
  private readonly reader = new SegmentReader();
  private unlock: (() => void) | undefined;

  constructor(
    private readonly dir: string,
    private readonly queue: string,
    private readonly clock: Clock,
    /** Size at which a log file is closed for appends (tests set it small). */
    private readonly segmentBytes = SEGMENT_BYTES,
  ) {}

  /**
   * Locks the directory and reads the log through (see the class's TSDoc); cuts a record the
   * last write left short.
   * @throws BridgeError when another running process has the directory open.
   */
  open(): void {
    mkdirSync(this.dir, { recursive: true });
    this.unlock = lockDirectory(this.dir, 'the queue directory');
    // Rows by message number, while the log is read through (afterwards a row travels with
    // its number: receipt handles and the heap's marks carry both).
    const rows = new Map<number, number>();
    for (const number of segmentNumbers(readdirSync(this.dir))) {
      const segment = QueueSegment.open(this.dir, number);
      this.segments.push(segment);
      const { records, end } = readRecords(readFileSync(segment.path));
      if (end < segment.size) segment.truncate(end);
      for (const record of records) {
        // Numbers only grow, even where the files holding the last messages sent are gone.
        if (record.kind !== 'sent')
          this.nextSeq = Math.max(this.nextSeq, ...record.seqs.map((seq) => seq + 1));
        if (record.kind === 'deleted') {
          for (const seq of record.seqs) {
            const row = rows.get(seq);
            if (row === undefined) continue;
            this.forget(row);
            rows.delete(seq);
          }
          continue;
        }
        if (record.kind === 'received') {
          for (const seq of record.seqs) {
            const row = rows.get(seq);
            if (row !== undefined) this.messages.countReceive(row, record.at);
          }
          continue;
        }
        const { seq, visibleAt, inLine, group } = record.header;
        // A second record of one message is its copy forward (see reclaim): it moves there.
        const copied = rows.get(seq);
        if (copied !== undefined) this.move(copied, segment, record.offset);
        else
          rows.set(
            seq,
            this.remember(seq, visibleAt, segment, record.offset, record.length, inLine, group),
          );
        this.nextSeq = Math.max(this.nextSeq, seq + 1);
      }
    }
    this.rebuildHeap();
    this.reclaim();
  }

  /** Closes the log's files and releases the directory's lock. */
  close(): void {
    for (const segment of this.segments) segment.close();
    this.segments = [];
    this.unlock?.();
    this.unlock = undefined;
  }

  /**
   * Stores messages, each visible after its delay, or at its `dueAt` (epoch ms) when given:
   * not before now, nor after its delay; returns their ids and body MD5s.
   */
  send(
    entries: ReadonlyArray<{
      body: string;
      delaySeconds: number;
      dueAt?: number;
      inLine?: boolean;
      group?: string;
    }>,
  ): StoredMessage[] {
    const now = this.clock.now();
    const sent = entries.map(({ body, delaySeconds, dueAt, inLine, group }) => ({
      header: {
        seq: this.nextSeq++,
        id: randomUUID(),
        sentAt: now,
        visibleAt: visibleAtOf(now, delaySeconds, dueAt),
        ...(inLine ? { inLine: true as const } : {}),
        ...(group === undefined ? {} : { group }),
      },
      body,
    }));
    this.append(sent);
    return sent.map(({ header, body }) =>
      withLazyMd5(
        { id: header.id, body, sentAt: now, receiveCount: 0, firstReceiveAt: 0 },
        'md5',
        body,
      ),
    );
  }

  /**
   * Stores messages kept elsewhere before (another store's backlog), with their ids, MD5s and
   * times; each takes the next place in this queue's order.
   */
  restore(messages: ReadonlyArray<Omit<SentHeader, 'seq'> & { body: string }>): void {
    this.append(
      messages.map(({ body, ...header }) => ({ header: { ...header, seq: this.nextSeq++ }, body })),
    );
  }

  /**
   * Waits until every file of the queue is on the device (`fdatasync`): before the caller
   * removes another copy of what was written here (a backlog {@link restore}d from elsewhere),
   * which a power loss could otherwise keep removed while these writes are lost.
   */
  sync(): void {
    for (const segment of this.segments) segment.sync();
    // Their names too: a file new since (or the queue's directory, new on a first start) is
    // reachable after a power loss only once the directory holding its name is synced.
    syncDirectory(this.dir);
    syncDirectory(dirname(this.dir));
  }

  private append(sent: ReadonlyArray<{ header: SentHeader; body: string }>): void {
    if (sent.length === 0) return;
    const places = sent.map(({ header, body }) => this.writer.sent(header, body));
    const { segment, start } = this.writeOut();
    sent.forEach(({ header: { seq, visibleAt, inLine, group } }, index) => {
      const { at, length } = places[index]!;
      const row = this.remember(seq, visibleAt, segment, start + at, length, inLine, group);
      this.heap.push(visibleAt, seq, row, 0);
    });
  }

  /**
   * When the next message may become visible (a delayed one, one whose visibility timeout
   * ends), if any; possibly earlier (a mark left by a message since received or deleted).
   */
  nextVisibleAt(): number | undefined {
    return this.heap.peekVisibleAt();
  }

  /** Takes up to `max` visible messages, invisible for `visibilityMs` from now. */
  receive(max: number, visibilityMs: number): ReceivedMessage[] {
    const now = this.clock.now();
    const messages = this.messages;
    const taken: number[] = [];
    while (taken.length < max) {
      const visibleAt = this.heap.peekVisibleAt();
      if (visibleAt === undefined || visibleAt > now) break;
      const row = this.heap.peekRow();
      const current =
        messages.holds(row, this.heap.peekSeq()) &&
        messages.version(row) === this.heap.peekVersion();
      if (current) taken.push(row);
      this.heap.pop();
    }
    if (taken.length === 0) return [];
    // Noted before anything changes: a note the disk refuses (full) leaves the messages visible
    // as they were, not in flight for the visibility timeout with nobody holding them.
    this.writer.received(
      now,
      taken.map((row) => messages.seq(row)),
    );
    try {
      this.writeOut();
    } catch (error) {
      for (const row of taken)
        this.heap.push(messages.visibleAt(row), messages.seq(row), row, messages.version(row));
      throw error;
    }
    const received = new Array<ReceivedMessage>(taken.length);
    this.reader.readEach(taken.map(this.placeOf), (_, record, index) => {
      const row = taken[index]!;
      const { header, body } = decodeSent(record);
      messages.countReceive(row, now);
      messages.setReceipt(row, ++this.receipts);
      this.setVisibleAt(row, now + visibilityMs);
      received[index] = withLazyMd5(
        {
          id: header.id,
          body,
          sentAt: header.sentAt,
          receiveCount: messages.receiveCount(row),
          firstReceiveAt: messages.firstReceiveAt(row),
          receiptHandle: `${this.queue}!${row}!${header.seq}!${this.receipts}`,
        },
        'md5',
        body,
        header.md5,
      );
    });
    return received;
  }

  /** Deletes received messages in one write; returns how many handles were current (not stale). */
  delete(receiptHandles: readonly string[]): number {
    const seqs: number[] = [];
    for (const handle of receiptHandles) {
      const row = this.received(handle);
      if (row === undefined) continue;
      seqs.push(this.messages.seq(row));
      this.forget(row);
    }
    if (seqs.length > 0) {
      this.writer.deleted(seqs);
      this.writeOut();
    }
    this.reclaim();
    return seqs.length;
  }

  /**
   * Takes every message of `group` out of the queue, oldest first, as long as each is visible:
   * when any is in flight (received and not yet deleted or visible again) or delayed, it takes
   * none and says how many are (`held`), as the ones in flight may still be handled before the
   * rest. `place` is handed the bodies taken before they are deleted here, in one write after it
   * returns (a stop in between leaves them in both places: at least once, as SQS).
   */
  takeGroup(group: string, place: (bodies: string[]) => void): { taken: number; held: number } {
    const now = this.clock.now();
    const messages = this.messages;
    const key = groupKeyOf(group);
    const rows: number[] = [];
    messages.forEachRow((row) => {
      if (messages.mayBeOfGroup(row, key)) rows.push(row);
    });
    if (rows.length === 0) return { taken: 0, held: 0 };
    rows.sort((a, b) => messages.seq(a) - messages.seq(b));
    // By index: the records are read in their files' order, which copies forward change.
    const read = new Array<string | undefined>(rows.length);
    let held = 0;
    this.reader.readEach(rows.map(this.placeOf), (_, record, index) => {
      const { header, body } = decodeSent(record);
      // Another group of the same key is none of this one's business.
      if (header.group !== group) return;
      if (messages.visibleAt(rows[index]!) > now) held++;
      read[index] = body;
    });
    const ofGroup = rows.filter((_, index) => read[index] !== undefined);
    const bodies = read.filter((body) => body !== undefined);
    if (held > 0 || ofGroup.length === 0) return { taken: 0, held };
    place(bodies);
    this.writer.deleted(ofGroup.map((row) => messages.seq(row)));
    this.writeOut();
    for (const row of ofGroup) this.forget(row);
    this.reclaim();
    return { taken: ofGroup.length, held: 0 };
  }

  /**
   * The messages held, counted by their group's key ({@link groupKeyOf}), and those sent
   * without a group: what waits per subject in the local bulk lane, without a read.
   */
  groupKeys(): GroupKeyCounts {
    const messages = this.messages;
    const keys = new Map<number, number>();
    let ungrouped = 0;
    messages.forEachRow((row) => {
      const key = messages.groupKey(row);
      if (key === undefined) ungrouped++;
      else keys.set(key, (keys.get(key) ?? 0) + 1);
    });
    return { keys, ungrouped };
  }

  /**
   * Makes a received message visible again after `seconds`; its handle stays current, as in
   * SQS. Returns the handle, or undefined when it is stale.
   */
  changeVisibility(receiptHandle: string, seconds: number): string | undefined {
    const row = this.received(receiptHandle);
    if (row === undefined) return undefined;
    this.setVisibleAt(row, this.clock.now() + seconds * 1000);
    return receiptHandle;
  }

  /**
   * Calls `visit` with the body of every message held (visible, in flight or delayed), in no
   * particular order, and changes nothing (no receive is counted, no visibility changes). With
   * `marker`, only the bodies that hold it, looked for in the records' bytes: a pass over a
   * backlog decodes only the messages asked for. The records are read back as a receive reads
   * them (neighbours in one `pread`).
   */
  forEachBody(visit: (body: string) => void, marker?: string): void {
    const rows: number[] = [];
    this.messages.forEachRow((row) => {
      rows.push(row);
    });
    const needle = marker === undefined ? undefined : Buffer.from(marker);
    this.reader.readEach(rows.map(this.placeOf), (_, record) => {
      const start = sentBodyStart(record);
      if (needle === undefined || record.indexOf(needle, start) >= 0)
        visit(record.toString('utf8', start));
    });
  }

  /**
   * Visible, in-flight (received, not yet visible again) and delayed messages, and of the
   * delayed ones those waiting in an endpoint's line.
   */
  counts(): QueueCounts {
    const now = this.clock.now();
    const counts: QueueCounts = { visible: 0, inFlight: 0, delayed: 0, delayedInLine: 0 };
    const messages = this.messages;
    messages.forEachRow((row) => {
      if (messages.visibleAt(row) <= now) counts.visible++;
      else if (messages.receipt(row) !== 0) counts.inFlight++;
      else {
        counts.delayed++;
        if (messages.inLine(row)) counts.delayedInLine++;
      }
    });
    return counts;
  }

  /**
   * The row of the message `handle` is the current receipt of (`queue!row!seq!receipt`): an
   * older receipt's handle, or one of a message deleted since, finds nothing.
   */
  private received(handle: string): number | undefined {
    if (!handle.startsWith(`${this.queue}!`)) return undefined;
    const [row, seq, receipt] = handle
      .slice(this.queue.length + 1)
      .split('!')
      .map(Number);
    if (row === undefined || seq === undefined || receipt === undefined || !(receipt > 0))
      return undefined;
    const current = this.messages.holds(row, seq) && this.messages.receipt(row) === receipt;
    return current ? row : undefined;
  }

  /** Where the record of the message in `row` lies (for the reader). */
  private readonly placeOf = (row: number): RecordPlace => ({
    segment: this.messages.segment(row),
    offset: this.messages.offset(row),
    length: this.messages.length(row),
  });

  /** Adds a message to the table and its file's counts; returns its row. */
  private remember(
    seq: number,
    visibleAt: number,
    segment: QueueSegment,
    offset: number,
    length: number,
    inLine?: boolean,
    group?: string,
  ): number {
    segment.live += 1;
    segment.liveBytes += length;
    return this.messages.add(seq, visibleAt, segment, offset, length, inLine, group);
  }

  private forget(row: number): void {
    const segment = this.messages.segment(row);
    segment.live -= 1;
    segment.liveBytes -= this.messages.length(row);
    this.messages.remove(row);
  }

  private setVisibleAt(row: number, visibleAt: number): void {
    const version = this.messages.setVisibleAt(row, visibleAt);
    this.heap.push(visibleAt, this.messages.seq(row), row, version);
    // Stale marks (deleted messages, older visibilities) are skipped when met; once they
    // outnumber the live ones, the heap is built again from the messages.
    if (this.heap.size > 2 * this.messages.size + 1024) this.rebuildHeap();
  }

  private rebuildHeap(): void {
    const messages = this.messages;
    this.heap.clear();
    messages.forEachRow((row) => {
      this.heap.push(messages.visibleAt(row), messages.seq(row), row, messages.version(row));
    });
  }

  /** Appends the records the writer holds to the file appends go to; says where they start. */
  private writeOut(): { segment: QueueSegment; start: number } {
    const segment = this.writableSegment();
    return { segment, start: segment.append(this.writer.take()) };
  }

  /** The file appends go to: the newest, or a new one once it is full. */
  private writableSegment(): QueueSegment {
    const newest = this.segments.at(-1);
    if (newest !== undefined && newest.size < this.segmentBytes) return newest;
    const segment = QueueSegment.open(this.dir, (newest?.number ?? -1) + 1);
    this.segments.push(segment);
    return segment;
  }

  /**
   * Removes the oldest files while every message of theirs is deleted (a delete record is
   * never older than its message, so no later file needs an earlier one), and copies forward
   * the few messages left in an old file that would otherwise keep every newer one.
   */
  private reclaim(): void {
    for (;;) {
      const [oldest, ...newer] = this.segments;
      if (oldest === undefined || newer.length === 0) return;
      if (oldest.live > 0) {
        if (newer.length < 2 || oldest.liveBytes > oldest.size * COMPACT_LIVE_SHARE) return;
        this.copyForward(oldest);
      }
      this.segments.shift();
      oldest.remove();
    }
  }

  /**
   * Appends the records of `segment`'s remaining messages, unchanged, to the newest file, and
   * syncs it and the directory naming it: a power loss may keep the removal of `segment` that
   * follows and lose writes not synced before it, and these messages may have been on disk for
   * hours (the one sync a file's life at most).
   */
  private copyForward(segment: QueueSegment): void {
    const kept: number[] = [];
    this.messages.forEachRow((row) => {
      if (this.messages.segment(row) === segment) kept.push(row);
    });
    const offsets = new Array<number>(kept.length);
    let bytes = 0;
    this.reader.readEach(kept.map(this.placeOf), (_, record, index) => {
      this.writer.copy(record);
      offsets[index] = bytes;
      bytes += record.length;
    });
    const { segment: target, start } = this.writeOut();
    target.sync();
    // The file copied to may be new since the directory was last synced: its name must be on
    // the device too, or a power loss could keep the removal and lose the file.
    syncDirectory(this.dir);
    kept.forEach((row, index) => {
      this.move(row, target, start + offsets[index]!);
    });
  }

  /**
   * Points the message in `row` at its record's copy at `offset` in `segment`; each file's
   * counts follow.
   */
  private move(row: number, segment: QueueSegment, offset: number): void {
    const length = this.messages.length(row);
    const from = this.messages.segment(row);
    from.live -= 1;
    from.liveBytes -= length;
    this.messages.move(row, segment, offset);
    segment.live += 1;
    segment.liveBytes += length;
  }
}

/** A queue's messages counted by their group's key (see LogQueueStore.groupKeys). */
export interface GroupKeyCounts {
  keys: Map<number, number>;
  /** Messages sent without a group. */
  ungrouped: number;
}

/** Waits until the names in directory `path` are on the device (no-op where it cannot: Windows). */
function syncDirectory(path: string): void {
  if (process.platform === 'win32') return;
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * When a message sent at `now` becomes visible: after `delaySeconds`, or at `dueAt` (epoch ms)
 * when given, within [now, now + delaySeconds]: SQS's delays are whole seconds, rounded up
 * by the sender, this queue keeps the milliseconds. Pure.
 * @example visibleAtOf(1_000, 1, 1_300) === 1_300
 */
export function visibleAtOf(now: number, delaySeconds: number, dueAt?: number): number {
  const delayed = now + delaySeconds * 1000;
  return dueAt === undefined ? delayed : Math.min(delayed, Math.max(now, dueAt));
}
