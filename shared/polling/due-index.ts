/** One stream in a {@link DueIndex}. */
export interface DueEntry {
  readonly streamId: string;
  /** When the stream is due: the order of the streams taken together (see {@link DueIndex.ready}). */
  readonly dueAt: number;
  /**
   * When it may be taken: its `dueAt`, or later while it is held back, or `Infinity` while it
   * runs. The heap's key.
   */
  readonly readyAt: number;
  /** Its place in the list of streams: the order of those due at the same time. */
  readonly order: number;
}

/**
 * A binary min-heap of streams by the time they may next be taken (`readyAt`, then `order`),
 * updated and removed by stream id in O(log n). {@link ready} visits only the streams ready
 * by a time and their children, so a planner tick's work grows with the streams due, not with
 * the streams waiting (13,000 of 1,000 hotels, nearly all waiting at any tick). Not pure (it
 * holds the heap), but free of I/O and clocks.
 * @example
 * const index = new DueIndex([{ streamId: 'a', dueAt: 5, readyAt: 5, order: 0 }]);
 * index.ready(5).map((entry) => entry.streamId); // ['a']
 */
export class DueIndex {
  private readonly heap: DueEntry[];
  private readonly positions = new Map<string, number>();
  /** Entries read by the index's operations since it was made: its work, for tests. */
  examined = 0;

  /** Builds the heap of `entries` in O(n); a stream id given twice keeps its last entry. */
  constructor(entries: Iterable<DueEntry> = []) {
    this.heap = [];
    for (const entry of entries) {
      const at = this.positions.get(entry.streamId);
      if (at === undefined) {
        this.positions.set(entry.streamId, this.heap.length);
        this.heap.push(entry);
      } else this.heap[at] = entry;
    }
    for (let index = (this.heap.length >> 1) - 1; index >= 0; index--) this.siftDown(index);
  }

  /** Streams in the index. */
  get size(): number {
    return this.heap.length;
  }

  /** Whether `streamId` is in the index. */
  has(streamId: string): boolean {
    return this.positions.has(streamId);
  }

  /** The stream's entry, or undefined when it is not in the index. */
  get(streamId: string): DueEntry | undefined {
    const at = this.positions.get(streamId);
    return at === undefined ? undefined : this.heap[at];
  }

  /** Adds the entry's stream, or replaces its entry when it is in already. */
  set(entry: DueEntry): void {
    const at = this.positions.get(entry.streamId);
    if (at === undefined) {
      this.heap.push(entry);
      this.positions.set(entry.streamId, this.heap.length - 1);
      this.siftUp(this.heap.length - 1);
      return;
    }
    this.heap[at] = entry;
    this.siftDown(this.siftUp(at));
  }

  /** Removes `streamId`'s entry; nothing when it is not in the index. */
  remove(streamId: string): void {
    const at = this.positions.get(streamId);
    if (at === undefined) return;
    this.positions.delete(streamId);
    const last = this.heap.pop()!;
    if (at === this.heap.length) return;
    this.heap[at] = last;
    this.positions.set(last.streamId, at);
    this.siftDown(this.siftUp(at));
  }

  /** The entry taken first (least `readyAt`, then `order`), or undefined when empty. */
  peek(): DueEntry | undefined {
    return this.heap[0];
  }

  /** Removes and returns the entry taken first, or undefined when empty. */
  pop(): DueEntry | undefined {
    const first = this.heap[0];
    if (first) this.remove(first.streamId);
    return first;
  }

  /**
   * The entries ready by `now` (`readyAt <= now`), by `dueAt`, then `order`, without removing
   * them: O(k log k) for k ready, whatever the size of the index.
   */
  ready(now: number): DueEntry[] {
    return this.frontier(now).ready.sort((a, b) => a.dueAt - b.dueAt || a.order - b.order);
  }

  /**
   * The least `readyAt` later than `now`, or undefined when no entry has one: when the next
   * stream not ready by `now` becomes ready. Visits the entries ready by `now` and the first
   * not ready below them, as {@link ready} does.
   * @example new DueIndex([{ streamId: 'a', dueAt: 5, readyAt: 5, order: 0 }]).nextReadyAfter(4) === 5
   */
  nextReadyAfter(now: number): number | undefined {
    const next = this.frontier(now).nextReadyAt;
    return next === Number.POSITIVE_INFINITY ? undefined : next;
  }

  /**
   * The entries ready by `now`, in heap order, and the least `readyAt` of the others (undefined
   * when there are none): a walk down from the root that stops at each entry not ready, since
   * a child's key is never below its parent's.
   */
  private frontier(now: number): { ready: DueEntry[]; nextReadyAt: number | undefined } {
    const ready: DueEntry[] = [];
    let nextReadyAt: number | undefined;
    const stack = this.heap.length > 0 ? [0] : [];
    while (stack.length > 0) {
      const at = stack.pop()!;
      const entry = this.heap[at]!;
      this.examined += 1;
      if (entry.readyAt > now) {
        if (nextReadyAt === undefined || entry.readyAt < nextReadyAt) nextReadyAt = entry.readyAt;
        continue;
      }
      ready.push(entry);
      if (2 * at + 1 < this.heap.length) stack.push(2 * at + 1);
      if (2 * at + 2 < this.heap.length) stack.push(2 * at + 2);
    }
    return { ready, nextReadyAt };
  }

  private before(a: DueEntry, b: DueEntry): boolean {
    this.examined += 1;
    return a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.order < b.order);
  }

  /** Moves the entry at `at` up to its place; returns where it ends. */
  private siftUp(at: number): number {
    const entry = this.heap[at]!;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!this.before(entry, this.heap[parent]!)) break;
      this.place(this.heap[parent]!, at);
      at = parent;
    }
    this.place(entry, at);
    return at;
  }

  private siftDown(at: number): void {
    const entry = this.heap[at]!;
    for (;;) {
      let child = 2 * at + 1;
      if (child >= this.heap.length) break;
      const right = child + 1;
      if (right < this.heap.length && this.before(this.heap[right]!, this.heap[child]!))
        child = right;
      if (!this.before(this.heap[child]!, entry)) break;
      this.place(this.heap[child]!, at);
      at = child;
    }
    this.place(entry, at);
  }

  private place(entry: DueEntry, at: number): void {
    this.heap[at] = entry;
    this.positions.set(entry.streamId, at);
  }
}
