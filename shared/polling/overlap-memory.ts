import { hash } from 'node:crypto';
import type { EntityRecord } from '../changes/entity-types.ts';
import type { StreamWindow } from '../state/state-store.ts';
import type { Observation } from './page-changes.ts';

/** Records remembered at most per stream by default (a burst of this many is passed over whole). */
export const OVERLAP_MEMORY_STREAM_ENTRIES_DEFAULT = 20_000;
/** Records remembered at most over all streams by default (about 200 bytes each). */
export const OVERLAP_MEMORY_TOTAL_ENTRIES_DEFAULT = 50_000;

/**
 * The fingerprint of one record version: SHA-256 of its JSON text as validated, so any
 * difference at all (`UpdatedUtc` included) gives another fingerprint.
 */
export function recordFingerprint(record: EntityRecord): string {
  return hash('sha256', JSON.stringify(record), 'base64');
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
 * passes over the records it re-reads unchanged instead of hashing each again and reading its
 * stored snapshot to compare (the page itself is still fetched and validated). At one-second
 * polling with the default five-second overlap, a burst of updates is otherwise judged twice or
 * more.
 *
 * Sound because a record is passed over only when (a) its version is byte for byte the one this
 * process stored for that stream's entity (a fingerprint of the whole record, `UpdatedUtc`
 * included), and (b) the stream's state still holds the very watermark that window committed
 * and no window in progress: a reset or backfill, another poller's window (a Lambda container's
 * memory outlives its job), a window cut off before its commit, all leave another state, and the
 * memory is then not used; a sweep, which writes tombstones under the same watermark, forgets
 * it. Another writer that stores a newer version of a record (a write through the bridge)
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

  constructor(
    memory: OverlapMemory,
    recalled: ReadonlyMap<string, string> | undefined,
    window: StreamWindow,
    overlapMs: number,
  ) {
    this.#memory = memory;
    this.#recalled = recalled;
    this.#zoneStartMs = Date.parse(window.endUtc) - overlapMs;
  }

  /**
   * The observations to judge: those not passed over. `keep` receives the fingerprints to keep
   * once the page is stored.
   */
  filter(observations: Observation[], keep: Array<[string, string]>): Observation[] {
    let passed = 0;
    const judged = observations.filter((observation) => {
      if (observation.record === null) return true;
      const known = this.#recalled?.get(observation.entityId);
      const updated = observation.record.UpdatedUtc;
      const reReadable = typeof updated === 'string' && Date.parse(updated) >= this.#zoneStartMs;
      if (known === undefined && !reReadable) return true;
      const print = recordFingerprint(observation.record);
      if (reReadable) keep.push([observation.entityId, print]);
      if (known !== print) return true;
      passed++;
      return false;
    });
    this.#memory.notePassedOver(passed);
    return judged;
  }

  /** Keeps the fingerprints of a stored page, as far as one stream's bound allows. */
  keepStored(entries: ReadonlyArray<readonly [string, string]>): void {
    for (const [entityId, print] of entries) {
      if (this.#kept.size >= this.#memory.maxEntriesPerStream && !this.#kept.has(entityId)) return;
      this.#kept.set(entityId, print);
    }
  }

  /** Hands what was kept to the memory: the window committed `watermark`. */
  commit(streamId: string, watermark: string): void {
    this.#memory.remember(streamId, watermark, this.#kept);
  }
}
