import { hash, randomUUID } from 'node:crypto';
import type { ClassicLevel } from 'classic-level';
import type { Clock } from '../../clock.ts';

/**
 * One queue's messages on LevelDB. A message's attributes live under one key,
 * `<queue>!<visibleAt>!<seq>!<state>`, ordered by when it becomes visible: a receive scans the
 * keys up to now and moves each taken message to `now + visibility timeout` (state `f`, in
 * flight); a send puts it at `now + delay` (state `q`). Its body lives apart, under
 * `<queue>#<id>`, written once by the send and deleted with the message, so a receive moves only
 * a few small attributes (bodies are kilobytes). The key is the receipt handle, so a delete
 * after the message was received again (its visibility expired) finds nothing, as in SQS.
 * The number of messages is kept in memory (one process opens a data dir), so counting them
 * reads only the keys not yet visible (in flight or delayed), never the whole backlog.
 */
export interface StoredMessage {
  id: string;
  body: string;
  md5: string;
  sentAt: number;
  receiveCount: number;
  firstReceiveAt: number;
}

/** What the key of a message holds: everything but the body (older stores kept it there too). */
type MessageAttributes = Omit<StoredMessage, 'body'> & { body?: string };

/** A received message and the handle that deletes it. */
export interface ReceivedMessage extends StoredMessage {
  receiptHandle: string;
}

/** Counts as SQS reports them. */
export interface QueueCounts {
  visible: number;
  inFlight: number;
  delayed: number;
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/**
 * Where the next receive may start: a full take may have left messages at the last key's
 * time; a short one took everything visible up to `now`.
 */
export function nextScanFloor(taken: ReadonlyArray<[string, unknown]>, max: number, now: number) {
  const last = taken.at(-1);
  if (last === undefined || taken.length < max) return now + 1;
  return Number(last[0].split('!')[1]);
}

/** A queue's messages in a LevelDB database (see the file's TSDoc). */
export class LevelQueueStore {
  private seq = 0;
  /**
   * No message is visible before this time: a receive starts its scan here rather than at the
   * queue's first key, so it does not walk the deleted keys (LevelDB tombstones) of every
   * message already consumed. Every key written lowers it (see {@link key}).
   */
  private scanFloor = 0;
  /**
   * The earliest time of a key written while a receive scans: sends take no turn in the serial
   * order, so one may land behind the scan's snapshot, and the floor the scan computes must not
   * pass it (the message would never be seen).
   */
  private writtenDuringScan = Number.POSITIVE_INFINITY;
  /** Sends whose keys are chosen and whose write has not completed: the earliest key time of each. */
  private readonly unsettledSends = new Set<{ visibleAt: number }>();
  private lock: Promise<unknown> = Promise.resolve();
  /** Messages stored, visible or not (counted by {@link open}, then kept current). */
  private stored = 0;

  constructor(
    private readonly db: ClassicLevel<string, string>,
    private readonly queue: string,
    private readonly clock: Clock,
  ) {}

  private key(visibleAt: number, state: 'q' | 'f'): string {
    this.seq += 1;
    this.scanFloor = Math.min(this.scanFloor, visibleAt);
    this.writtenDuringScan = Math.min(this.writtenDuringScan, visibleAt);
    return `${this.queue}!${pad(visibleAt, 15)}!${pad(this.clock.now(), 15)}${pad(this.seq, 9)}!${state}`;
  }

  /** Runs `work` after every earlier one (receives must not take the same message twice). */
  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.lock.then(work, work);
    this.lock = next.catch(() => undefined);
    return next;
  }

  /**
   * Counts the stored messages and makes those left in flight visible again: one process opens
   * a data dir at a time, so a message in flight at open was taken by a process that is gone,
   * and waiting out its visibility timeout (minutes) would only delay its delivery. Each goes
   * back in its first place (visible from when it was sent), ahead of messages sent after it:
   * at the end of the queue, an event could follow a later event of its own subject.
   */
  open(): Promise<void> {
    return this.serial(async () => {
      const now = this.clock.now();
      const released: Array<
        { type: 'del'; key: string } | { type: 'put'; key: string; value: string }
      > = [];
      this.stored = 0;
      for await (const [key, value] of this.db.iterator({ gt: this.prefix, lt: this.end })) {
        this.stored++;
        const [, visibleAt, , state] = key.split('!');
        if (state !== 'f' || Number(visibleAt) <= now) continue;
        const { sentAt } = JSON.parse(value) as Partial<MessageAttributes>;
        const firstPlace = typeof sentAt === 'number' ? Math.min(sentAt, now) : now;
        released.push({ type: 'del', key }, { type: 'put', key: this.key(firstPlace, 'q'), value });
      }
      await this.db.batch(released);
    });
  }

  private get prefix(): string {
    return `${this.queue}!`;
  }

  private get end(): string {
    return `${this.queue}!~`;
  }

  /** Where a message's body lives (outside the `<queue>!` range of the attribute keys). */
  private bodyKey(id: string): string {
    return `${this.queue}#${id}`;
  }

  /** Stores messages, each visible after its delay; returns their ids and body MD5s. */
  async send(entries: ReadonlyArray<{ body: string; delaySeconds: number }>) {
    const now = this.clock.now();
    const stored = entries.map(({ body }) => ({
      id: randomUUID(),
      body,
      md5: hash('md5', body, 'hex'),
      sentAt: now,
      receiveCount: 0,
      firstReceiveAt: 0,
    }));
    const writes = stored.flatMap(({ body, ...attributes }, index) => [
      { type: 'put' as const, key: this.bodyKey(attributes.id), value: body },
      {
        type: 'put' as const,
        key: this.key(now + entries[index]!.delaySeconds * 1000, 'q'),
        value: JSON.stringify(attributes),
      },
    ]);
    // New keys are unique, so a send needs no turn in the serial order of receives and deletes;
    // until its write lands, a receive's scan floor stays at or below its keys.
    const unsettled = { visibleAt: Math.min(...entries.map((e) => now + e.delaySeconds * 1000)) };
    this.unsettledSends.add(unsettled);
    try {
      await this.db.batch(writes);
    } finally {
      this.unsettledSends.delete(unsettled);
    }
    this.stored += stored.length;
    return stored;
  }

  /** Takes up to `max` visible messages, invisible for `visibilityMs` from now. */
  receive(max: number, visibilityMs: number): Promise<ReceivedMessage[]> {
    return this.serial(async () => {
      const now = this.clock.now();
      const taken: Array<[string, MessageAttributes]> = [];
      this.writtenDuringScan = Math.min(
        Number.POSITIVE_INFINITY,
        ...[...this.unsettledSends].map((send) => send.visibleAt),
      );
      for await (const [key, value] of this.db.iterator({
        gte: `${this.queue}!${pad(this.scanFloor, 15)}`,
        lt: `${this.queue}!${pad(now + 1, 15)}`,
        limit: max,
      }))
        taken.push([key, JSON.parse(value) as MessageAttributes]);
      this.scanFloor = Math.min(nextScanFloor(taken, max, now), this.writtenDuringScan);
      if (taken.length === 0) return [];
      const bodies = await this.db.getMany(taken.map(([, message]) => this.bodyKey(message.id)));
      const received = taken.map(([oldKey, { body: inline, ...message }], index) => ({
        oldKey,
        // A message an older store kept with its body in the key moves its body out now.
        inline,
        message: {
          ...message,
          body: inline ?? bodies[index] ?? '',
          receiveCount: message.receiveCount + 1,
          firstReceiveAt: message.firstReceiveAt || now,
          receiptHandle: this.key(now + visibilityMs, 'f'),
        },
      }));
      await this.db.batch(
        received.flatMap(({ oldKey, inline, message: { receiptHandle, body, ...attributes } }) => [
          { type: 'del' as const, key: oldKey },
          { type: 'put' as const, key: receiptHandle, value: JSON.stringify(attributes) },
          ...(inline === undefined
            ? []
            : [{ type: 'put' as const, key: this.bodyKey(attributes.id), value: body }]),
        ]),
      );
      return received.map((item) => item.message);
    });
  }

  /** Deletes received messages in one write; returns how many handles were current (not stale). */
  delete(receiptHandles: readonly string[]): Promise<number> {
    return this.serial(async () => {
      const own = receiptHandles.filter((handle) => handle.startsWith(this.prefix));
      const values = own.length > 0 ? await this.db.getMany(own) : [];
      const current = own.flatMap((key, index) => {
        const value = values[index];
        return value === undefined
          ? []
          : [{ key, id: (JSON.parse(value) as MessageAttributes).id }];
      });
      await this.db.batch(
        current.flatMap(({ key, id }) => [
          { type: 'del' as const, key },
          { type: 'del' as const, key: this.bodyKey(id) },
        ]),
      );
      this.stored -= current.length;
      return current.length;
    });
  }

  /** Makes a received message visible again after `seconds`; false when the handle is stale. */
  changeVisibility(receiptHandle: string, seconds: number): Promise<string | undefined> {
    return this.serial(async () => {
      if (!receiptHandle.startsWith(this.prefix)) return undefined;
      const value = await this.db.get(receiptHandle);
      if (value === undefined) return undefined;
      const key = this.key(this.clock.now() + seconds * 1000, 'f');
      await this.db.batch([
        { type: 'del', key: receiptHandle },
        { type: 'put', key, value },
      ]);
      return key;
    });
  }

  /** Visible, in-flight and delayed messages: a scan of the keys not yet visible only. */
  async counts(): Promise<QueueCounts> {
    const now = this.clock.now();
    const counts: QueueCounts = { visible: 0, inFlight: 0, delayed: 0 };
    for await (const key of this.db.keys({ gt: `${this.prefix}${pad(now, 15)}~`, lt: this.end })) {
      if (key.endsWith('!f')) counts.inFlight++;
      else counts.delayed++;
    }
    counts.visible = Math.max(0, this.stored - counts.inFlight - counts.delayed);
    return counts;
  }
}
