import { hash } from 'node:crypto';
import { writeJsonBytes } from '../changes/json-bytes.ts';

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

/**
 * The fingerprint of a record version from its JSON text as the connector sent it: equal to
 * {@link recordFingerprint} of the parsed record exactly when the text is JSON.stringify's of it
 * (the same UTF-8 bytes hashed), as a compact JSON writer's is.
 */
export function textFingerprint(text: string): string {
  return hash('sha256', text, 'base64');
}

/** One record version remembered: its fingerprint and its `UpdatedUtc` (NaN without one). */
export interface RememberedPrint {
  print: string;
  updatedMs: number;
}

/** What one stream's last committed window stored, for the window that starts from it. */
interface Remembered {
  /** The watermark that window committed: the next window starts from it. */
  watermark: string;
  /** Entity id → the version stored. */
  prints: ReadonlyMap<string, RememberedPrint>;
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
 * its stored snapshot to compare (the page itself is still fetched and each record hashed;
 * it is parsed only when one of them is not such a record: see OverlapScreen, overlap-screen.ts).
 * At one-second polling with the default five-second overlap, a
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
  #passedOverAsText = 0;

  constructor(options: OverlapMemoryOptions = {}) {
    this.#maxPerStream = options.maxEntriesPerStream ?? OVERLAP_MEMORY_STREAM_ENTRIES_DEFAULT;
    this.#max = options.maxEntries ?? OVERLAP_MEMORY_TOTAL_ENTRIES_DEFAULT;
  }

  /**
   * The fingerprints a window of `streamId` starting from `watermark` may pass over, or
   * undefined when the last committed window of this process did not end at that watermark.
   */
  recall(
    streamId: string,
    watermark: string | null,
  ): ReadonlyMap<string, RememberedPrint> | undefined {
    const remembered = this.#streams.get(streamId);
    if (remembered === undefined || watermark === null) return undefined;
    return remembered.watermark === watermark ? remembered.prints : undefined;
  }

  /**
   * Replaces what is remembered of `streamId` with the records its window that committed
   * `watermark` stored or passed over, as far as the bounds allow (the rest is judged as always).
   */
  remember(
    streamId: string,
    watermark: string,
    prints: ReadonlyMap<string, RememberedPrint>,
  ): void {
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

  /** Counts records passed over, `asText` those of pages not parsed (for tests and diagnostics). */
  notePassedOver(count: number, asText = false): void {
    this.#passedOver += count;
    if (asText) this.#passedOverAsText += count;
  }

  /** Records passed over since the memory was made. */
  get passedOver(): number {
    return this.#passedOver;
  }

  /** Of {@link passedOver}, those of pages passed over whole from their text. */
  get passedOverAsText(): number {
    return this.#passedOverAsText;
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
