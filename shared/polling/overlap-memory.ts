import { hash } from 'node:crypto';
import { type EntityRecord, type EntityType, entityIdOf } from '../changes/entity-types.ts';
import { writeJsonBytes } from '../changes/json-bytes.ts';
import type { ItemScreen } from '../connector/item-screen.ts';
import { isJsonObject } from '../json-object.ts';
import type { StreamWindow } from '../state/state-store.ts';

/** Records remembered at most per stream by default (a burst of this many is passed over whole). */
export const OVERLAP_MEMORY_STREAM_ENTRIES_DEFAULT = 20_000;
/** Records remembered at most over all streams by default (about 200 bytes each). */
export const OVERLAP_MEMORY_TOTAL_ENTRIES_DEFAULT = 50_000;

/**
 * The fingerprint of one record version: SHA-256 of its JSON text as the connector sent it
 * (parsed, not yet validated: JSON.stringify's UTF-8 bytes, written straight into a reused
 * buffer rather than built as a string and encoded again), so any difference at all
 * (`UpdatedUtc` included) gives another fingerprint. Throws BridgeError on what JSON cannot hold.
 */
export function recordFingerprint(record: unknown): string {
  return writeJsonBytes(record, { sorted: false }, (bytes) => hash('sha256', bytes, 'base64'));
}

/** What one stream's last committed window stored, for the window that starts from it. */
interface Remembered {
  /** The watermark that window committed: the next window starts from it. */
  watermark: string;
  /** Entity id → fingerprint of the version stored. */
  prints: ReadonlyMap<string, string>;
}

/** Bounds of an {@link OverlapMemory}. */
export interface OverlapMemoryOptions {
  /** Default {@link OVERLAP_MEMORY_STREAM_ENTRIES_DEFAULT}. */
  maxEntriesPerStream?: number;
  /** Default {@link OVERLAP_MEMORY_TOTAL_ENTRIES_DEFAULT}. */
  maxEntries?: number;
}

/**
 * What a process's poller remembers of the records its last window of each stream stored, so
 * that the next window, which starts `overlap` before that window's end (design.md, Windows),
 * passes over the records it re-reads unchanged instead of validating each again and reading
 * its stored snapshot to compare (the page itself is still fetched, parsed and each record
 * hashed; see OverlapScreen). At one-second polling with the default five-second overlap, a
 * burst of updates is otherwise judged twice or more.
 *
 * Sound because a record is passed over only when (a) its version is byte for byte the one this
 * process stored for that stream's entity (a fingerprint of the whole record, `UpdatedUtc`
 * included), and (b) the stream's state still holds the very watermark that window committed
 * and no window in progress: a reset or backfill, another poller's window (a Lambda container's
 * memory outlives its job), a window cut off before its commit, all leave another state, and the
 * memory is then not used; a sweep, and a deletion read that finds a record deleted, which
 * write tombstones under the same watermark, forget it. Another writer that stores a newer version of a record (a write through the bridge)
 * cannot make a skip wrong: the connector then answers with that newer version, whose
 * fingerprint differs. Only records that the next window can read again are remembered
 * (`UpdatedUtc` at or after the window end minus the overlap), within a bound per stream and in
 * all; a record not remembered is judged as always.
 */
export class OverlapMemory {
  readonly #streams = new Map<string, Remembered>();
  readonly #maxPerStream: number;
  readonly #max: number;
  #entries = 0;
  #passedOver = 0;

  constructor(options: OverlapMemoryOptions = {}) {
    this.#maxPerStream = options.maxEntriesPerStream ?? OVERLAP_MEMORY_STREAM_ENTRIES_DEFAULT;
    this.#max = options.maxEntries ?? OVERLAP_MEMORY_TOTAL_ENTRIES_DEFAULT;
  }

  /**
   * The fingerprints a window of `streamId` starting from `watermark` may pass over, or
   * undefined when the last committed window of this process did not end at that watermark.
   */
  recall(streamId: string, watermark: string | null): ReadonlyMap<string, string> | undefined {
    const remembered = this.#streams.get(streamId);
    if (remembered === undefined || watermark === null) return undefined;
    return remembered.watermark === watermark ? remembered.prints : undefined;
  }

  /**
   * Replaces what is remembered of `streamId` with the records its window that committed
   * `watermark` stored or passed over, as far as the bounds allow (the rest is judged as always).
   */
  remember(streamId: string, watermark: string, prints: ReadonlyMap<string, string>): void {
    this.forget(streamId);
    const room = Math.min(this.#maxPerStream, this.#max - this.#entries);
    if (room <= 0 || prints.size === 0) return;
    const kept = prints.size <= room ? prints : new Map([...prints].slice(0, room));
    this.#streams.set(streamId, { watermark, prints: kept });
    this.#entries += kept.size;
  }

  /** Drops what is remembered of `streamId` (a window that failed or was cut off). */
  forget(streamId: string): void {
    const remembered = this.#streams.get(streamId);
    if (remembered === undefined) return;
    this.#entries -= remembered.prints.size;
    this.#streams.delete(streamId);
  }

  /** Counts records passed over (for tests and diagnostics). */
  notePassedOver(count: number): void {
    this.#passedOver += count;
  }

  /** Records passed over since the memory was made. */
  get passedOver(): number {
    return this.#passedOver;
  }

  /** Records remembered at most for one stream. */
  get maxEntriesPerStream(): number {
    return this.#maxPerStream;
  }

  /** Records remembered now, over all streams. */
  get entries(): number {
    return this.#entries;
  }
}

/** The entity id of a raw, not yet validated record, or undefined when it has none. */
function rawEntityId(entityType: EntityType, item: unknown): string | undefined {
  if (!isJsonObject(item)) return undefined;
  try {
    return entityIdOf(entityType, item as EntityRecord);
  } catch {
    return undefined;
  }
}

/** Ids that occur more than once among `items` (the connector repeats none; if it did, none of them is passed over). */
function repeatedIds(ids: ReadonlyArray<string | undefined>): Set<string> {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const id of ids) {
    if (id === undefined) continue;
    if (seen.has(id)) repeated.add(id);
    else seen.add(id);
  }
  return repeated;
}

/**
 * The screen of one page of a window (see ItemScreen): it passes over the raw records the
 * window before stored byte for byte (so they are neither validated nor judged again), and
 * notes the fingerprints of those the next window can read again, to keep once the page is
 * stored. Fingerprints are taken of the records as the connector sent them, before validation.
 */
export class OverlapScreen implements ItemScreen {
  /** Entity id and fingerprint of each record of the page the next window can read again. */
  readonly keep: Array<[string, string]> = [];
  #passedOver = 0;
  readonly #entityType: EntityType;
  readonly #recalled: ReadonlyMap<string, string> | undefined;
  readonly #zoneStartMs: number;

  constructor(
    entityType: EntityType,
    recalled: ReadonlyMap<string, string> | undefined,
    zoneStartMs: number,
  ) {
    this.#entityType = entityType;
    this.#recalled = recalled;
    this.#zoneStartMs = zoneStartMs;
  }

  screen(items: readonly unknown[]): unknown[] {
    this.keep.length = 0;
    this.#passedOver = 0;
    const ids = items.map((item) => rawEntityId(this.#entityType, item));
    const repeated = repeatedIds(ids);
    return items.filter((item, index) => {
      const entityId = ids[index];
      if (entityId === undefined || repeated.has(entityId)) return true;
      const known = this.#recalled?.get(entityId);
      const updated = (item as Record<string, unknown>).UpdatedUtc;
      const reReadable = typeof updated === 'string' && Date.parse(updated) >= this.#zoneStartMs;
      if (known === undefined && !reReadable) return true;
      const print = recordFingerprint(item);
      if (reReadable) this.keep.push([entityId, print]);
      if (known !== print) return true;
      this.#passedOver++;
      return false;
    });
  }

  /** Records of the page passed over. */
  get passedOver(): number {
    return this.#passedOver;
  }
}

/**
 * What one window passes over and remembers: the fingerprints its start may pass over (those the
 * window before it stored, when it starts from that window's watermark), and those it stores or
 * passes over that the next window can read again (`UpdatedUtc` at or after its end minus the
 * overlap).
 */
export class WindowOverlap {
  /** Kept for the next window, once the pages that hold them are stored (within the bound). */
  readonly #kept = new Map<string, string>();
  readonly #memory: OverlapMemory;
  readonly #recalled: ReadonlyMap<string, string> | undefined;
  readonly #zoneStartMs: number;
  readonly #entityType: EntityType;

  constructor(
    memory: OverlapMemory,
    recalled: ReadonlyMap<string, string> | undefined,
    window: StreamWindow,
    overlapMs: number,
    entityType: EntityType,
  ) {
    this.#memory = memory;
    this.#recalled = recalled;
    this.#zoneStartMs = Date.parse(window.endUtc) - overlapMs;
    this.#entityType = entityType;
  }

  /** A screen for one page's request. */
  pageScreen(): OverlapScreen {
    return new OverlapScreen(this.#entityType, this.#recalled, this.#zoneStartMs);
  }

  /** Keeps what a stored page's screen noted, as far as one stream's bound allows. */
  keepStored(screen: ItemScreen | undefined): void {
    if (!(screen instanceof OverlapScreen)) return;
    this.#memory.notePassedOver(screen.passedOver);
    for (const [entityId, print] of screen.keep) {
      if (this.#kept.size >= this.#memory.maxEntriesPerStream && !this.#kept.has(entityId)) return;
      this.#kept.set(entityId, print);
    }
  }

  /** Hands what was kept to the memory: the window committed `watermark`. */
  commit(streamId: string, watermark: string): void {
    this.#memory.remember(streamId, watermark, this.#kept);
  }
}
