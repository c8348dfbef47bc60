/**
 * The newest `maxEntries` items of an append-only list, with the number dropped before them:
 * a simulator left running for days with activity (`npm start`, `simulator --activity N`) would
 * otherwise keep every mutation and request it ever saw. Appending is O(1) amortized.
 */
export class BoundedLog<T> {
  private items: (T | undefined)[] = [];
  /** Index in {@link items} of the oldest kept item (those before it are released). */
  private head = 0;
  private droppedCount = 0;

  constructor(private max: number) {
    this.max = BoundedLog.checked(max);
  }

  private static checked(max: number): number {
    if (!Number.isSafeInteger(max) || max < 1)
      throw new RangeError(`a log keeps at least one entry, not ${max}`);
    return max;
  }

  /** The most items kept. */
  get maxEntries(): number {
    return this.max;
  }

  /** Keeps at most `max` items from now on, dropping the oldest beyond it at once. */
  setMaxEntries(max: number): void {
    this.max = BoundedLog.checked(max);
    this.trim();
  }

  push(item: T): void {
    this.items.push(item);
    this.trim();
  }

  /** Items kept. */
  get size(): number {
    return this.items.length - this.head;
  }

  /** Items appended and no longer kept (since the last {@link clear}). */
  get dropped(): number {
    return this.droppedCount;
  }

  /** The kept items after the first `skip` of them, oldest first. */
  from(skip = 0): T[] {
    return this.items.slice(this.head + Math.max(0, skip)) as T[];
  }

  /** Forgets every item, kept and dropped. */
  clear(): void {
    this.items = [];
    this.head = 0;
    this.droppedCount = 0;
  }

  private trim(): void {
    const excess = this.size - this.max;
    if (excess <= 0) return;
    for (let i = 0; i < excess; i++) this.items[this.head + i] = undefined;
    this.head += excess;
    this.droppedCount += excess;
    // The released slots go once they outnumber the kept ones: a copy of `max` items every
    // `max` drops at most.
    if (this.head >= this.max) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }
}
