import { hash, randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import type { Clock } from '../../clock.ts';
import { lockDirectory } from '../directory-lock.ts';
import type { QueueCounts, ReceivedMessage, StoredMessage } from './queue-messages.ts';
import { decodeSent, RecordWriter, readRecords, type SentHeader } from './queue-records.ts';
import { QueueSegment, segmentNumbers } from './queue-segment.ts';
import { SegmentReader } from './segment-reader.ts';
import { VisibilityHeap } from './visibility-heap.ts';

/** A message the log holds: where its record is, when it is visible, its receipts. */
interface QueuedMessage {
  seq: number;
  visibleAt: number;
  /** Bumped with each change of `visibleAt`: older marks in the heap are stale. */
  version: number;
  segment: QueueSegment;
  offset: number;
  length: number;
  receiveCount: number;
  firstReceiveAt: number;
  /** The handle of its current receipt, while received. */
  receipt: string | undefined;
}

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
 * in memory, about 250 bytes a message with V8's overhead: a receive takes the earliest
 * visible messages from a heap and reads their records back from the files, so bodies of a
 * backlog cost disk, not resident memory. One process opens a data dir at a time: at open the log is read through
 * and every message not deleted is visible again from when it was sent (in flight in a process
 * that is gone, waiting out its visibility timeout would only delay it), in its first place,
 * ahead of messages sent after it. Receives are noted in the log too (a message's receive count
 * survives a restart).
 * @example const store = new LogQueueStore(join(dataDir, 'queue', name), name, clock); store.open();
 */
export class LogQueueStore {
  private readonly messages = new Map<number, QueuedMessage>();
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
          for (const seq of record.seqs) this.forget(seq);
          continue;
        }
        if (record.kind === 'received') {
          for (const seq of record.seqs) this.countReceive(this.messages.get(seq), record.at);
          continue;
        }
        const { seq, visibleAt } = record.header;
        // A second record of one message is its copy forward (see reclaim): it moves there.
        const copied = this.messages.get(seq);
        if (copied) this.move(copied, segment, record.offset);
        else
          this.remember({ seq, visibleAt, segment, offset: record.offset, length: record.length });
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

  /** Stores messages, each visible after its delay; returns their ids and body MD5s. */
  send(entries: ReadonlyArray<{ body: string; delaySeconds: number }>): StoredMessage[] {
    const now = this.clock.now();
    const sent = entries.map(({ body, delaySeconds }) => ({
      header: {
        seq: this.nextSeq++,
        id: randomUUID(),
        md5: hash('md5', body, 'hex'),
        sentAt: now,
        visibleAt: now + delaySeconds * 1000,
      },
      body,
    }));
    this.append(sent);
    return sent.map(({ header, body }) => ({
      id: header.id,
      body,
      md5: header.md5,
      sentAt: now,
      receiveCount: 0,
      firstReceiveAt: 0,
    }));
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

  private append(sent: ReadonlyArray<{ header: SentHeader; body: string }>): void {
    if (sent.length === 0) return;
    const places = sent.map(({ header, body }) => this.writer.sent(header, body));
    const { segment, start } = this.writeOut();
    sent.forEach(({ header }, index) => {
      const { at, length } = places[index]!;
      const place = { seq: header.seq, visibleAt: header.visibleAt, segment, offset: start + at };
      const message = this.remember({ ...place, length });
      this.heap.push({ visibleAt: message.visibleAt, seq: message.seq, version: message.version });
    });
  }

  /** Takes up to `max` visible messages, invisible for `visibilityMs` from now. */
  receive(max: number, visibilityMs: number): ReceivedMessage[] {
    const now = this.clock.now();
    const taken: QueuedMessage[] = [];
    while (taken.length < max) {
      const mark = this.heap.peek();
      if (mark === undefined || mark.visibleAt > now) break;
      this.heap.pop();
      const message = this.messages.get(mark.seq);
      if (message !== undefined && message.version === mark.version) taken.push(message);
    }
    if (taken.length === 0) return [];
    const received = new Array<ReceivedMessage>(taken.length);
    this.reader.readEach(taken, (message, record, index) => {
      const { header, body } = decodeSent(record);
      this.countReceive(message, now);
      message.receipt = `${this.queue}!${message.seq}!${++this.receipts}`;
      this.setVisibleAt(message, now + visibilityMs);
      received[index] = {
        id: header.id,
        body,
        md5: header.md5,
        sentAt: header.sentAt,
        receiveCount: message.receiveCount,
        firstReceiveAt: message.firstReceiveAt,
        receiptHandle: message.receipt,
      };
    });
    this.writer.received(
      now,
      taken.map((message) => message.seq),
    );
    this.writeOut();
    return received;
  }

  /** Deletes received messages in one write; returns how many handles were current (not stale). */
  delete(receiptHandles: readonly string[]): number {
    const seqs: number[] = [];
    for (const handle of receiptHandles) {
      const message = this.received(handle);
      if (message === undefined) continue;
      this.forget(message.seq);
      seqs.push(message.seq);
    }
    if (seqs.length > 0) {
      this.writer.deleted(seqs);
      this.writeOut();
    }
    this.reclaim();
    return seqs.length;
  }

  /**
   * Makes a received message visible again after `seconds`; its handle stays current, as in
   * SQS. Returns the handle, or undefined when it is stale.
   */
  changeVisibility(receiptHandle: string, seconds: number): string | undefined {
    const message = this.received(receiptHandle);
    if (message === undefined) return undefined;
    this.setVisibleAt(message, this.clock.now() + seconds * 1000);
    return receiptHandle;
  }

  /** Visible, in-flight (received, not yet visible again) and delayed messages. */
  counts(): QueueCounts {
    const now = this.clock.now();
    const counts: QueueCounts = { visible: 0, inFlight: 0, delayed: 0 };
    for (const message of this.messages.values()) {
      if (message.visibleAt <= now) counts.visible++;
      else if (message.receipt !== undefined) counts.inFlight++;
      else counts.delayed++;
    }
    return counts;
  }

  /** The message `handle` is the current receipt of: an older receipt's handle finds nothing. */
  private received(handle: string): QueuedMessage | undefined {
    if (!handle.startsWith(`${this.queue}!`)) return undefined;
    const seq = Number(handle.slice(this.queue.length + 1, handle.lastIndexOf('!')));
    const message = this.messages.get(seq);
    return message?.receipt === handle ? message : undefined;
  }

  private remember(
    place: Pick<QueuedMessage, 'seq' | 'visibleAt' | 'segment' | 'offset' | 'length'>,
  ) {
    const message: QueuedMessage = {
      ...place,
      version: 0,
      receiveCount: 0,
      firstReceiveAt: 0,
      receipt: undefined,
    };
    this.messages.set(message.seq, message);
    message.segment.live += 1;
    message.segment.liveBytes += message.length;
    return message;
  }

  private forget(seq: number): void {
    const message = this.messages.get(seq);
    if (message === undefined) return;
    this.messages.delete(seq);
    message.segment.live -= 1;
    message.segment.liveBytes -= message.length;
  }

  private countReceive(message: QueuedMessage | undefined, at: number): void {
    if (message === undefined) return;
    message.receiveCount += 1;
    message.firstReceiveAt ||= at;
  }

  private setVisibleAt(message: QueuedMessage, visibleAt: number): void {
    message.visibleAt = visibleAt;
    message.version += 1;
    this.heap.push({ visibleAt, seq: message.seq, version: message.version });
    // Stale marks (deleted messages, older visibilities) are skipped when met; once they
    // outnumber the live ones, the heap is built again from the messages.
    if (this.heap.size > 2 * this.messages.size + 1024) this.rebuildHeap();
  }

  private rebuildHeap(): void {
    this.heap.reset(
      [...this.messages.values()].map(({ visibleAt, seq, version }) => ({
        visibleAt,
        seq,
        version,
      })),
    );
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

  /** Appends the records of `segment`'s remaining messages, unchanged, to the newest file. */
  private copyForward(segment: QueueSegment): void {
    const kept = [...this.messages.values()].filter((message) => message.segment === segment);
    const offsets = new Array<number>(kept.length);
    let bytes = 0;
    this.reader.readEach(kept, (_, record, index) => {
      this.writer.copy(record);
      offsets[index] = bytes;
      bytes += record.length;
    });
    const { segment: target, start } = this.writeOut();
    kept.forEach((message, index) => {
      this.move(message, target, start + offsets[index]!);
    });
  }

  /** Points `message` at its record's copy at `offset` in `segment`; each file's counts follow. */
  private move(message: QueuedMessage, segment: QueueSegment, offset: number): void {
    message.segment.live -= 1;
    message.segment.liveBytes -= message.length;
    message.segment = segment;
    message.offset = offset;
    segment.live += 1;
    segment.liveBytes += message.length;
  }
}
