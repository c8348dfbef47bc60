import type { Clock } from '../clock.ts';
import type { StateStore, StreamState } from '../state/state-store.ts';
import { ToldStateReads } from './told-state-reads.ts';

/**
 * How often the loop reads every stream state: a safety net for a change it was not told of.
 * Each finished poll keeps its own stream's state, the streams new to its list and those of
 * PollLoopOptions.stateChanges are re-read one by one, so 1,000 connections of 13 streams do not
 * read 13,000 states every few ticks.
 */
export const FULL_STATE_READ_INTERVAL_MS = 60_000;

/**
 * After a full read that took d ms, the next one waits at least d × this: full reads take at
 * most a tenth of the loop's time, however slow the store is under load.
 */
export const FULL_STATE_READ_SPACING_FACTOR = 10;

/**
 * Longest wait before the first full read of the stream states tries again after failed ones:
 * the wait starts at one tick and doubles per failure, so a store that cannot be read (its disk
 * failing) is not asked, and the failure not reported, at every tick. Once a full read has
 * succeeded, a failed one is tried again after {@link FULL_STATE_READ_INTERVAL_MS}, as any
 * other (polls and re-reads keep the known states meanwhile).
 */
export const FULL_STATE_READ_RETRY_MAX_MS = 30_000;

/** What a {@link StreamStateView} needs of the loop it serves. */
export interface StreamStateViewOptions {
  store: Pick<StateStore, 'listStreams' | 'getStream'>;
  clock: Pick<Clock, 'now'>;
  /** The loop's tick: the first wait after a failed full read, doubled per failure since. */
  tickMs: number;
  /** A re-read changed what is known of the stream (its due time follows). */
  onStateChanged(streamId: string): void;
  /** A full read replaced every known state. */
  onAllReplaced(): void;
  /** A read that failed: a full one (tried again later) or a re-read (left to the next full one). */
  onError(error: unknown): void;
}

/**
 * The poll loop's knowledge of the stream states: each finished poll keeps its own stream's
 * state, re-reads fetch the streams told of one by one, and a full read of every state, every
 * {@link FULL_STATE_READ_INTERVAL_MS} at most, catches what none told. Full reads run beside the
 * loop's ticks (one at a time), spaced by {@link FULL_STATE_READ_SPACING_FACTOR} times their
 * length and, after failures, by {@link FULL_STATE_READ_RETRY_MAX_MS}'s doubling wait.
 */
export class StreamStateView {
  private states = new Map<string, StreamState>();
  /**
   * What was kept of each stream (null: none stored) and when, as {@link changes} counted: a
   * full read merges what was kept while it ran, and a re-read is dropped for a stream kept
   * after it began. Holds what was kept since the last full read that completed began.
   */
  private readonly kept = new Map<string, { state: StreamState | null; at: number }>();
  private lastFullReadAt = Number.NEGATIVE_INFINITY;
  /** Whether a full read has completed: until then, what is due is unknown. */
  private fullReadDone = false;
  private fullRead: Promise<void> | undefined;
  private nextFullReadAt = Number.NEGATIVE_INFINITY;
  /** Full reads failed in a row, and when the next may try (see FULL_STATE_READ_RETRY_MAX_MS). */
  private fullReadFailures = 0;
  private fullReadRetryAt = Number.NEGATIVE_INFINITY;
  /** Streams re-read one by one: told of, or new to the loop's list. */
  private readonly toldReads: ToldStateReads;
  /** Counts the view's changes: each kept state, each full read begun. */
  private changes = 0;
  /** When the last full read that completed began, as {@link changes} counted it. */
  private replacedAt = -1;

  constructor(private readonly options: StreamStateViewOptions) {
    this.toldReads = new ToldStateReads({
      store: options.store,
      beginRead: (streamId) => {
        const began = this.changes;
        return (state) => this.applyReread(streamId, state, began);
      },
      onError: (error) => options.onError(error),
    });
  }

  /** Whether a full read has completed: until then, what is due is unknown. */
  get loaded(): boolean {
    return this.fullReadDone;
  }

  /** The stream's state as last read or kept (undefined: none known). */
  get(streamId: string): StreamState | undefined {
    return this.states.get(streamId);
  }

  /** Re-reads the states of `streamIds` soon, one by one (see {@link ToldStateReads}). */
  reread(streamIds: Iterable<string>): void {
    this.toldReads.read(streamIds);
  }

  /**
   * Keeps the state a finished poll of the stream wrote or re-read (undefined: none stored), also
   * over a full read under way, which may have seen the stream before its poll ended.
   */
  keep(streamId: string, state: StreamState | undefined): void {
    if (state) this.states.set(streamId, state);
    else this.states.delete(streamId);
    this.kept.set(streamId, { state: state ?? null, at: ++this.changes });
  }

  /**
   * Starts a full read of every state when one is due at `now` and none runs: the first at once,
   * then every {@link FULL_STATE_READ_INTERVAL_MS} at most. A failure is told to `onError`.
   */
  readAllIfDue(now: number): void {
    const due =
      now >= this.fullReadRetryAt &&
      (!this.fullReadDone ||
        (now >= this.lastFullReadAt + FULL_STATE_READ_INTERVAL_MS && now >= this.nextFullReadAt));
    if (this.fullRead || !due) return;
    this.lastFullReadAt = now;
    this.fullRead = this.readAll()
      .catch((error: unknown) => {
        this.fullReadFailures += 1;
        const waitMs = this.options.tickMs * 2 ** Math.min(20, this.fullReadFailures - 1);
        this.fullReadRetryAt =
          this.options.clock.now() + Math.min(FULL_STATE_READ_RETRY_MAX_MS, waitMs);
        this.options.onError(error);
      })
      .finally(() => {
        this.fullRead = undefined;
      });
  }

  /** The full read under way, if any (it never rejects). */
  fullReadInFlight(): Promise<void> | undefined {
    return this.fullRead;
  }

  /** Resolves once the full read and every re-read asked for so far have ended. */
  async idle(): Promise<void> {
    await this.fullRead;
    await this.toldReads.idle();
  }

  private async readAll(): Promise<void> {
    const began = this.options.clock.now();
    const beganAt = ++this.changes;
    const listed = await this.options.store.listStreams();
    this.states = mergeNewer(listed, this.kept, beganAt);
    this.replacedAt = beganAt;
    // What was kept before this read began, the read holds: a re-read older still falls back
    // to versions (see applyReread).
    for (const [streamId, { at }] of this.kept) if (at < beganAt) this.kept.delete(streamId);
    this.options.onAllReplaced();
    this.fullReadDone = true;
    this.fullReadFailures = 0;
    const ended = this.options.clock.now();
    this.nextFullReadAt = ended + (ended - began) * (FULL_STATE_READ_SPACING_FACTOR - 1);
  }

  /**
   * Applies a re-read that began at `began` (as {@link changes} counted). Reads are consistent,
   * so what it found is the stored state unless the view learnt something since: a state kept
   * after the read began (a poll that ended meanwhile) is at least as new, and the re-read is
   * dropped, whatever it found (none included); after a full read that began meanwhile, the
   * higher version wins. Otherwise it is taken as found, a lower version too (the stream was
   * removed and stored afresh, its versions starting again).
   */
  private applyReread(streamId: string, state: StreamState | undefined, began: number): void {
    if ((this.kept.get(streamId)?.at ?? -1) > began) return;
    const known = this.states.get(streamId);
    if (this.replacedAt > began && state && known && known.version > state.version) return;
    this.keep(streamId, state);
    this.options.onStateChanged(streamId);
  }
}

/**
 * A full read of the stream states, corrected by the states kept while it ran (from `since`): a
 * poll that finished during the read must not look due again because the read saw it before
 * (that would poll it twice). The higher version wins; a re-read that found none removes it.
 */
function mergeNewer(
  listed: readonly StreamState[],
  kept: ReadonlyMap<string, { state: StreamState | null; at: number }>,
  since: number,
): Map<string, StreamState> {
  const merged = new Map(listed.map((state) => [state.streamId, state]));
  for (const [streamId, { state, at }] of kept) {
    if (at < since) continue;
    const seen = merged.get(streamId);
    if (state === null) merged.delete(streamId);
    else if (!seen || state.version > seen.version) merged.set(streamId, state);
  }
  return merged;
}
