/** Bookkeeping the simulator keeps beside every record, whatever its shape. */
export interface EntryMeta {
  /** Enterprise the record belongs to, or null for chain-level records (customers, notes). */
  enterpriseId: string | null;
  /** Chain the record belongs to. */
  chainId: string;
  createdMs: number;
  /** Internal update time: kept even when the record's shape has no `UpdatedUtc`. */
  updatedMs: number;
}

/** One stored record with its creation sequence and lifecycle flags. */
export interface Entry<T> extends EntryMeta {
  record: T;
  /** Position in creation order; the pagination order (newest first = highest first). */
  index: number;
  /** Soft deletes (IsActive false / ActivityState Deleted) set this; restores clear it. */
  deletedMs: number | null;
  /** Hard deletes set this: the record vanishes from every answer, and a cursor naming it is refused. */
  removed: boolean;
}

/** Above this many enterprises or chains, a confined walk goes through the whole set. */
const MERGE_MAX_PARTITIONS = 16;

/**
 * The enterprises or chains a read is confined to: a page walk then visits only their records
 * (a token sees one enterprise of thousands), not the whole set.
 */
export type Partitions = { enterpriseIds: Iterable<string> } | { chainIds: Iterable<string> };

/**
 * An insertion-ordered set of records with a Map by key. A record's `index` (its creation
 * position) never changes, so a cursor keeps its position while records are updated or deleted
 * and a page walk never sees gaps or duplicates: hard deletes only flag a record, and only
 * {@link purge} drops one from memory (the arrays are compacted now and then, their entries
 * still in order of `index`). Each enterprise's and each chain's records are also kept in
 * creation order of their own.
 */
export class EntitySet<T> {
  private order: Entry<T>[] = [];
  private readonly byKey = new Map<string, Entry<T>>();
  private readonly byEnterprise = new Map<string, Entry<T>[]>();
  private readonly byChain = new Map<string, Entry<T>[]>();
  /** The `index` of the next record inserted: every record ever stored has had one. */
  private nextIndex = 0;
  /** Purged entries still in the arrays (see {@link compact}). */
  private purgedInArrays = 0;
  /** Every update time an entry was given, with the entry (see {@link updatedWithin}). */
  private updates: UpdateMark<T>[] = [];
  /** Whether {@link updates} is in order of time (updates come at the current time; a dataset's do not). */
  private updatesSorted = true;
  private liveCount = 0;

  constructor(
    /** The key of a record: its `Id` (tax environments: `Code`). */
    readonly keyOf: (record: T) => string,
  ) {}

  /** Adds a record as the newest one. Throws when its key is already taken. */
  insert(record: T, meta: EntryMeta): Entry<T> {
    const key = this.keyOf(record);
    if (this.byKey.has(key)) throw new Error(`duplicate simulator record key ${key}`);
    // Members written out, not spread from `meta`: V8 gives an object that adds members after a
    // spread copy a hidden class of its own (see shared/with-members.ts), four a record here.
    // The large dataset's heap was 395 MB with them, 333 MB without (its process 653 → 474 MB).
    const entry: Entry<T> = {
      enterpriseId: meta.enterpriseId,
      chainId: meta.chainId,
      createdMs: meta.createdMs,
      updatedMs: meta.updatedMs,
      record,
      index: this.nextIndex,
      deletedMs: null,
      removed: false,
    };
    this.nextIndex += 1;
    this.order.push(entry);
    this.byKey.set(key, entry);
    if (meta.enterpriseId !== null) appendTo(this.byEnterprise, meta.enterpriseId, entry);
    appendTo(this.byChain, meta.chainId, entry);
    this.noteUpdate(entry);
    this.liveCount += 1;
    return entry;
  }

  /** Moves an entry's update time (every change of a record's `updatedMs` goes through here). */
  touch(entry: Entry<T>, updatedMs: number): void {
    entry.updatedMs = updatedMs;
    this.noteUpdate(entry);
  }

  private noteUpdate(entry: Entry<T>): void {
    const last = this.updates.at(-1);
    if (last && last.ms > entry.updatedMs) this.updatesSorted = false;
    this.updates.push({ ms: entry.updatedMs, entry });
    // Marks of entries updated since are dropped now and then, so the list stays near the set's size.
    if (this.updates.length > 2 * this.order.length + 1024) this.compactUpdates();
  }

  private compactUpdates(): void {
    this.updates = this.updates.filter((mark) => mark.entry.updatedMs === mark.ms);
    this.sortUpdates();
  }

  private sortUpdates(): void {
    if (this.updatesSorted) return;
    this.updates.sort((a, b) => a.ms - b.ms);
    this.updatesSorted = true;
  }

  /**
   * The live entries whose update time is in `[startMs, endMs)`, in no particular order, found
   * by update time rather than by walking the set: a live poll's window over 100,000 records
   * holds a few of them. Undefined when more than `atMost` are (a walk costs less then), and at
   * once when the window holds more than twice `atMost` update marks, so a first sync's window
   * of ~22,000 records is not gone through mark by mark for every page read from it (it was 15 %
   * of the CPU of a process reading such pages through the simulator it ran).
   */
  updatedWithin(startMs: number, endMs: number, atMost: number): Entry<T>[] | undefined {
    this.sortUpdates();
    const low = this.firstMarkFrom(startMs);
    // Marks an entry has left since, and removed entries, are among them: an upper bound.
    if (this.firstMarkFrom(endMs) - low > 2 * atMost) return undefined;
    const found = new Set<Entry<T>>();
    for (let i = low; i < this.updates.length; i += 1) {
      const { ms, entry } = this.updates[i]!;
      if (ms >= endMs) break;
      // A mark of an update time the entry has since left is passed over.
      if (entry.updatedMs !== ms || entry.removed) continue;
      found.add(entry);
      if (found.size > atMost) return undefined;
    }
    return [...found];
  }

  /** The position of the first update mark at or after `ms` (the marks sorted). */
  private firstMarkFrom(ms: number): number {
    let low = 0;
    let high = this.updates.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.updates[middle]!.ms < ms) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /**
   * Puts the entries in order of creation time (ties keep their insertion order): a dataset
   * generated enterprise by enterprise inserts each one's records as a block whose times
   * overlap the next one's, and pages are newest first by position (connector-api.md,
   * Pagination 3). For a freshly generated set only: positions change, so no cursor may exist.
   */
  orderByCreation(): void {
    this.order.sort((a, b) => a.createdMs - b.createdMs || a.index - b.index);
    this.order.forEach((entry, position) => {
      entry.index = position;
    });
    this.nextIndex = this.order.length;
    for (const index of [this.byEnterprise, this.byChain])
      for (const list of index.values()) list.sort((a, b) => a.index - b.index);
  }

  /** The live (not hard-deleted) entry with this key. */
  get(key: string): Entry<T> | undefined {
    const entry = this.byKey.get(key);
    return entry && !entry.removed ? entry : undefined;
  }

  /** Any entry stored with this key, hard-deleted ones included (purged ones not). */
  locate(key: string): Entry<T> | undefined {
    return this.byKey.get(key);
  }

  /** Hard-deletes a record: it disappears from answers (a cursor naming it is refused); its position stays. */
  remove(key: string): Entry<T> | undefined {
    const entry = this.get(key);
    if (!entry) return undefined;
    entry.removed = true;
    this.liveCount -= 1;
    return entry;
  }

  /**
   * Drops a record from memory for good, live, soft-deleted or hard-deleted: it vanishes from
   * every answer and a cursor naming it is refused, like a hard-deleted one, and no lookup finds
   * it any more. Other records keep their positions. False when no record has the key.
   */
  purge(key: string): boolean {
    const entry = this.byKey.get(key);
    if (!entry) return false;
    if (!entry.removed) {
      entry.removed = true;
      this.liveCount -= 1;
    }
    this.byKey.delete(key);
    this.purgedInArrays += 1;
    // Compacted once a quarter of the order array is purged: each compaction costs the set's
    // size, paid for by as many purges.
    if (this.purgedInArrays > 16 && 4 * this.purgedInArrays > this.order.length) this.compact();
    return true;
  }

  /** Takes purged entries out of the arrays; the others keep their order and `index`. */
  private compact(): void {
    const kept = (entry: Entry<T>) => this.byKey.get(this.keyOf(entry.record)) === entry;
    this.order = this.order.filter(kept);
    for (const index of [this.byEnterprise, this.byChain])
      for (const [id, list] of index) {
        const left = list.filter(kept);
        if (left.length > 0) index.set(id, left);
        else index.delete(id);
      }
    this.updates = this.updates.filter((mark) => kept(mark.entry));
    this.purgedInArrays = 0;
  }

  /** Live entries newest first, starting just below `beforeIndex` (exclusive) when given. */
  *newestFirst(beforeIndex = this.nextIndex): Generator<Entry<T>> {
    for (let i = below(this.order, beforeIndex); i >= 0; i -= 1) {
      const entry = this.order[i]!;
      if (!entry.removed) yield entry;
    }
  }

  /**
   * Live entries of the given enterprises or chains, newest first, starting just below
   * `beforeIndex` (exclusive) when given: the same order as {@link newestFirst} filtered to
   * them, walking only their records.
   */
  *newestFirstWithin(partitions: Partitions, beforeIndex = this.nextIndex): Generator<Entry<T>> {
    const [index, wanted] = this.partitionsOf(partitions);
    if (wanted.size > MERGE_MAX_PARTITIONS) {
      // Walking many short lists in step costs more than walking the whole set once.
      const key = 'enterpriseIds' in partitions ? 'enterpriseId' : 'chainId';
      for (const entry of this.newestFirst(beforeIndex))
        if (wanted.has(entry[key] ?? '')) yield entry;
      return;
    }
    const lists = [...wanted].flatMap((id) => {
      const list = index.get(id);
      return list ? [list] : [];
    });
    // Per list, the position of its newest entry still to visit.
    const heads = lists.map((list) => below(list, beforeIndex));
    for (;;) {
      let pick = -1;
      for (let i = 0; i < lists.length; i += 1) {
        const head = heads[i]!;
        if (head >= 0 && (pick < 0 || lists[i]![head]!.index > lists[pick]![heads[pick]!]!.index))
          pick = i;
      }
      if (pick < 0) return;
      const entry = lists[pick]![heads[pick]!]!;
      heads[pick] = heads[pick]! - 1;
      if (!entry.removed) yield entry;
    }
  }

  /**
   * Up to `count` live entries that pass `keep`, newest first, below `beforeIndex` (exclusive)
   * and within `partitions` when given: a page walk, the same entries as taking from
   * {@link newestFirst} or {@link newestFirstWithin}, with plain loops where it can (the whole
   * set, or one enterprise or chain): a window over 100,000 records visits every one of them.
   */
  page(
    keep: (entry: Entry<T>) => boolean,
    count: number,
    beforeIndex = this.nextIndex,
    partitions?: Partitions,
  ): Entry<T>[] {
    const page: Entry<T>[] = [];
    const list = partitions === undefined ? this.order : this.onlyList(partitions);
    if (list === undefined) {
      for (const entry of this.newestFirstWithin(partitions!, beforeIndex)) {
        if (!keep(entry)) continue;
        page.push(entry);
        if (page.length >= count) break;
      }
      return page;
    }
    for (let i = below(list, beforeIndex); i >= 0 && page.length < count; i -= 1) {
      const entry = list[i]!;
      if (!entry.removed && keep(entry)) page.push(entry);
    }
    return page;
  }

  /** The one enterprise's or chain's list a read is confined to (empty if it has none); undefined for several. */
  private onlyList(partitions: Partitions): readonly Entry<T>[] | undefined {
    const [index, wanted] = this.partitionsOf(partitions);
    if (wanted.size !== 1) return undefined;
    const [id] = wanted;
    return index.get(id!) ?? [];
  }

  /** The per-partition lists a read confined to `partitions` uses, and which of them. */
  private partitionsOf(partitions: Partitions): [Map<string, Entry<T>[]>, Set<string>] {
    return 'enterpriseIds' in partitions
      ? [this.byEnterprise, new Set(partitions.enterpriseIds)]
      : [this.byChain, new Set(partitions.chainIds)];
  }

  /** Live entries in creation order. */
  *all(): Generator<Entry<T>> {
    for (const entry of this.order) if (!entry.removed) yield entry;
  }

  /** Number of live entries. */
  get size(): number {
    return this.liveCount;
  }

  /**
   * The live entry at a creation-order position among those stored, 0 to
   * {@link storedCount} - 1 (for sampling).
   */
  at(position: number): Entry<T> | undefined {
    const entry = this.order[position];
    return entry && !entry.removed ? entry : undefined;
  }

  /** Number of entries stored, hard-deleted ones included (purged ones not). */
  get storedCount(): number {
    return this.order.length;
  }

  /** Number of records ever inserted, purged ones included: a count that never goes back. */
  get insertedCount(): number {
    return this.nextIndex;
  }
}

/** An update time an entry was given. */
interface UpdateMark<T> {
  ms: number;
  entry: Entry<T>;
}

function appendTo<T>(index: Map<string, Entry<T>[]>, id: string, entry: Entry<T>): void {
  const list = index.get(id);
  if (list) list.push(entry);
  else index.set(id, [entry]);
}

/** Position of the last entry of `list` (ascending by index) whose index is below `beforeIndex`; -1 if none. */
function below<T>(list: readonly Entry<T>[], beforeIndex: number): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (list[middle]!.index < beforeIndex) low = middle + 1;
    else high = middle;
  }
  return low - 1;
}
