/**
 * At most `max` loaded values by key, the least recently used let go first (`onEvict` told,
 * e.g. to close a client). A load that fails is forgotten, so the next `get` loads again;
 * concurrent `get`s of one key share one load.
 * @example const clients = new LoadingCache<Client>(1000, (c) => c.close());
 */
export class LoadingCache<V> {
  private readonly entries = new Map<string, Promise<V>>();

  constructor(
    private readonly max: number,
    private readonly onEvict: (value: V) => void | Promise<void> = () => undefined,
  ) {}

  /** The value of `key`, loaded with `load` unless held; it becomes the most recently used. */
  get(key: string, load: () => Promise<V>): Promise<V> {
    let entry = this.entries.get(key);
    if (entry) this.entries.delete(key);
    else {
      entry = load();
      entry.catch(() => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      });
    }
    this.entries.set(key, entry);
    for (const [oldest, evicted] of this.entries) {
      if (this.entries.size <= this.max) break;
      this.entries.delete(oldest);
      evicted.then(this.onEvict).catch(() => undefined);
    }
    return entry;
  }

  /**
   * Lets go of `key`'s value (`onEvict` told once it is loaded), so the next `get` loads it
   * again; nothing when none is held.
   */
  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    entry.then(this.onEvict).catch(() => undefined);
  }

  /** How many values are held. */
  get size(): number {
    return this.entries.size;
  }
}
