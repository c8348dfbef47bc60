import { FNV_OFFSET, fnv1a } from '../../fnv1a.ts';
import { grown } from './typed-columns.ts';

/** Rows the table has room for before it first grows. */
const INITIAL_CAPACITY = 1024;
/** The number in a free row (message numbers start at 0). */
const FREE = -1;

/**
 * What a queue's log knows of each message it holds, one row a message in columns: its number,
 * where its record is (its file, offset, length), when it is visible and which change of that
 * this is, its receive count and first receive, the number of its current receipt (0 while
 * never received), whether it waits in an endpoint's line, and its group's key. Typed arrays but
 * for the file (a reference): 69 bytes a message, and no map:
 * whoever holds a row (a receipt handle, a mark of the visibility heap) keeps the message's
 * number beside it and asks {@link MessageTable.holds} whether the row is still that
 * message's. The index of a backlog of 100,000 messages takes ~7 MB (~35 MB as an object a
 * message with its receipt handle's string). Rows of removed messages are reused. Pure state;
 * LogQueueStore gives it meaning.
 */
export class MessageTable<Segment> {
  private readonly freeRows: number[] = [];
  /** Rows ever handed out (the rest of the columns is room to grow). */
  private used = 0;
  private count = 0;
  private seqs = new Float64Array(INITIAL_CAPACITY);
  private visibleAts = new Float64Array(INITIAL_CAPACITY);
  private versions = new Uint32Array(INITIAL_CAPACITY);
  /** Each row's file; a removed message's is dropped (its file may be gone). */
  private readonly segments: Array<Segment | undefined> = [];
  private offsets = new Float64Array(INITIAL_CAPACITY);
  private lengths = new Uint32Array(INITIAL_CAPACITY);
  private receiveCounts = new Uint32Array(INITIAL_CAPACITY);
  private firstReceiveAts = new Float64Array(INITIAL_CAPACITY);
  private receipts = new Float64Array(INITIAL_CAPACITY);
  /** 1 for a message sent as waiting in an endpoint's line (see SentHeader.inLine). */
  private inLines = new Uint8Array(INITIAL_CAPACITY);
  /** The {@link groupKeyOf} of the message's group; NaN for a message sent without one. */
  private groups = new Float64Array(INITIAL_CAPACITY);

  /** Messages held. */
  get size(): number {
    return this.count;
  }

  /** Whether `row` holds message `seq` (and not a message that took the row since). */
  holds(row: number, seq: number): boolean {
    return row >= 0 && row < this.used && this.seqs[row] === seq;
  }

  /**
   * Calls `visit` with the row of every message held, in no particular order (a plain loop: a
   * walk over a backlog allocates nothing per row, as a generator would).
   */
  forEachRow(visit: (row: number) => void): void {
    const seqs = this.seqs;
    for (let row = 0; row < this.used; row++) if (seqs[row]! >= 0) visit(row);
  }

  /**
   * Adds message `seq`, never received, whose record is at `offset` of file `segment`; returns
   * its row.
   */
  add(
    seq: number,
    visibleAt: number,
    segment: Segment,
    offset: number,
    length: number,
    inLine = false,
    group?: string,
  ): number {
    const row = this.freeRows.pop() ?? this.newRow();
    this.count++;
    this.seqs[row] = seq;
    this.visibleAts[row] = visibleAt;
    this.versions[row] = 0;
    this.segments[row] = segment;
    this.offsets[row] = offset;
    this.lengths[row] = length;
    this.receiveCounts[row] = 0;
    this.firstReceiveAts[row] = 0;
    this.receipts[row] = 0;
    this.inLines[row] = inLine ? 1 : 0;
    this.groups[row] = group === undefined ? Number.NaN : groupKeyOf(group);
    return row;
  }

  /** Drops the message in `row`; the row is reused. */
  remove(row: number): void {
    if (this.seqs[row]! < 0) return;
    this.seqs[row] = FREE;
    this.segments[row] = undefined;
    this.count--;
    this.freeRows.push(row);
  }

  seq(row: number): number {
    return this.seqs[row]!;
  }

  visibleAt(row: number): number {
    return this.visibleAts[row]!;
  }

  /** Which change of its visibility the message is at (marks of earlier ones are stale). */
  version(row: number): number {
    return this.versions[row]!;
  }

  /** Makes the message visible at `visibleAt`; returns its new version. */
  setVisibleAt(row: number, visibleAt: number): number {
    this.visibleAts[row] = visibleAt;
    this.versions[row] = this.versions[row]! + 1;
    return this.versions[row]!;
  }

  segment(row: number): Segment {
    return this.segments[row]!;
  }

  offset(row: number): number {
    return this.offsets[row]!;
  }

  length(row: number): number {
    return this.lengths[row]!;
  }

  /** Points the message at its record's copy at `offset` of file `segment`. */
  move(row: number, segment: Segment, offset: number): void {
    this.segments[row] = segment;
    this.offsets[row] = offset;
  }

  receiveCount(row: number): number {
    return this.receiveCounts[row]!;
  }

  firstReceiveAt(row: number): number {
    return this.firstReceiveAts[row]!;
  }

  /** Counts a receive at `at` (the first one's time is kept). */
  countReceive(row: number, at: number): void {
    this.receiveCounts[row] = this.receiveCounts[row]! + 1;
    if (this.firstReceiveAts[row] === 0) this.firstReceiveAts[row] = at;
  }

  /** Whether it was sent as waiting in an endpoint's line (see SentHeader.inLine). */
  inLine(row: number): boolean {
    return this.inLines[row] === 1;
  }

  /** The {@link groupKeyOf} of the message's group; undefined for a message without one. */
  groupKey(row: number): number | undefined {
    const key = this.groups[row]!;
    return Number.isNaN(key) ? undefined : key;
  }

  /**
   * Whether the message may be of `group`: its group's key is {@link groupKeyOf}(`group`) (two
   * groups may share a key; the record's header tells them apart).
   */
  mayBeOfGroup(row: number, groupKey: number): boolean {
    return this.groups[row] === groupKey;
  }

  /** The number of the message's current receipt; 0 while it was never received. */
  receipt(row: number): number {
    return this.receipts[row]!;
  }

  setReceipt(row: number, receipt: number): void {
    this.receipts[row] = receipt;
  }

  private newRow(): number {
    if (this.used === this.seqs.length) this.grow(this.seqs.length * 2);
    return this.used++;
  }

  private grow(capacity: number): void {
    this.seqs = grown(this.seqs, capacity);
    this.visibleAts = grown(this.visibleAts, capacity);
    this.versions = grown(this.versions, capacity);
    this.offsets = grown(this.offsets, capacity);
    this.lengths = grown(this.lengths, capacity);
    this.receiveCounts = grown(this.receiveCounts, capacity);
    this.firstReceiveAts = grown(this.firstReceiveAts, capacity);
    this.receipts = grown(this.receipts, capacity);
    this.inLines = grown(this.inLines, capacity);
    this.groups = grown(this.groups, capacity);
  }
}

/**
 * The key a message group is looked for by in a {@link MessageTable}: the number itself for a
 * group that is a 32-bit integer in decimal (the local bulk lane's: a subject's lane key, which
 * the lanes count by after a restart), else a 32-bit FNV-1a hash of its UTF-16 code units. Pure.
 * @example groupKeyOf('-12') === -12
 */
export function groupKeyOf(group: string): number {
  const number = Number(group);
  if ((number | 0) === number && String(number) === group) return number;
  return fnv1a(FNV_OFFSET, group);
}
