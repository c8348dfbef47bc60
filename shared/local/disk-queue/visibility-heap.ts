import { grown } from './typed-columns.ts';

/** Marks the heap has room for before it first grows. */
const INITIAL_CAPACITY = 1024;

/**
 * A binary min-heap of visibility marks (when a message becomes visible, its seq, its row in the
 * MessageTable, and which of its marks this is: a later change of its visibility makes an older
 * mark stale), earliest first, ties by seq (the order sent). The marks live in four typed
 * arrays, 24 bytes a mark: a backlog of 100,000 messages costs ~2.4 MB here, not a hundred
 * bytes an object. Marks are not removed when a message is deleted or its visibility changes;
 * the reader skips the stale ones it meets (see LogQueueStore) and rebuilds the heap when they
 * outnumber the rest.
 */
export class VisibilityHeap {
  private visibleAts = new Float64Array(INITIAL_CAPACITY);
  private seqs = new Float64Array(INITIAL_CAPACITY);
  private rows = new Uint32Array(INITIAL_CAPACITY);
  private versions = new Uint32Array(INITIAL_CAPACITY);
  private count = 0;

  get size(): number {
    return this.count;
  }

  push(visibleAt: number, seq: number, row: number, version: number): void {
    if (this.count === this.visibleAts.length) this.grow();
    let index = this.count++;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!this.markBefore(visibleAt, seq, parent)) break;
      this.copy(parent, index);
      index = parent;
    }
    this.set(index, visibleAt, seq, row, version);
  }

  /** When the earliest mark's message becomes visible; undefined when the heap is empty. */
  peekVisibleAt(): number | undefined {
    return this.count === 0 ? undefined : this.visibleAts[0];
  }

  /** The earliest mark's seq, row and version (the heap is not empty). */
  peekSeq(): number {
    return this.seqs[0]!;
  }

  peekRow(): number {
    return this.rows[0]!;
  }

  peekVersion(): number {
    return this.versions[0]!;
  }

  /** Removes the earliest mark. */
  pop(): void {
    if (this.count === 0) return;
    const last = --this.count;
    if (last === 0) return;
    const visibleAt = this.visibleAts[last]!;
    const seq = this.seqs[last]!;
    const row = this.rows[last]!;
    const version = this.versions[last]!;
    let index = 0;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= last) break;
      const right = left + 1;
      const child = right < last && this.before(right, left) ? right : left;
      if (this.markBefore(visibleAt, seq, child)) break;
      this.copy(child, index);
      index = child;
    }
    this.set(index, visibleAt, seq, row, version);
  }

  /** Empties the heap (before a rebuild without the stale marks). */
  clear(): void {
    this.count = 0;
  }

  /** Whether mark `a` comes before mark `b` (both indices). */
  private before(a: number, b: number): boolean {
    return this.markBefore(this.visibleAts[a]!, this.seqs[a]!, b);
  }

  /** Whether a mark (`visibleAt`, `seq`) comes before the mark at `index`. */
  private markBefore(visibleAt: number, seq: number, index: number): boolean {
    const other = this.visibleAts[index]!;
    return visibleAt < other || (visibleAt === other && seq < this.seqs[index]!);
  }

  private copy(from: number, to: number): void {
    this.set(to, this.visibleAts[from]!, this.seqs[from]!, this.rows[from]!, this.versions[from]!);
  }

  private set(index: number, visibleAt: number, seq: number, row: number, version: number): void {
    this.visibleAts[index] = visibleAt;
    this.seqs[index] = seq;
    this.rows[index] = row;
    this.versions[index] = version;
  }

  private grow(): void {
    const capacity = this.visibleAts.length * 2;
    this.visibleAts = grown(this.visibleAts, capacity);
    this.seqs = grown(this.seqs, capacity);
    this.rows = grown(this.rows, capacity);
    this.versions = grown(this.versions, capacity);
  }
}
