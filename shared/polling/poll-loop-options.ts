import type { catchUpSlots } from './catch-up-slots.ts';
import type { HELD_STORE_PROBE_MS } from './held-stream-probe.ts';
import type { PollDeps, StreamDefinition } from './poll-context.ts';
import type { PollOutcome } from './poll-stream.ts';
import type { failureBackoffMs } from './schedule.ts';
import type { StateChangeSource } from './state-change-notices.ts';
import type {
  FULL_STATE_READ_INTERVAL_MS,
  FULL_STATE_READ_RETRY_MAX_MS,
} from './stream-state-view.ts';

/** A running poll loop. */
export interface PollLoop {
  /** Lets the in-flight tick finish, then resolves. */
  stop(): Promise<void>;
  /**
   * The streams held back in memory now (see {@link PollLoopOptions.onStreamHeld}), by id: what
   * their stored states do not say (they were not stored), for `streams list`.
   */
  held(): ReadonlyMap<string, HeldStream>;
}

/**
 * Streams the local loop polls at once unless told otherwise (`POLL_CONCURRENCY`): enough to
 * hide connector round trips and store calls across a thousand hotels' live polls (in two
 * minutes of `npm run bench:connections`, 64 slots polled 6,800 streams a minute and 128 polled
 * 7,200), while first syncs, which hold their pages in memory, keep {@link catchUpSlots} (32).
 */
export const POLL_LOOP_CONCURRENCY_DEFAULT = 128;

/** Options of the local runtime's poll loop (startPollLoop, in poll-runner.ts). */
export interface PollLoopOptions {
  /** The streams to poll, or a function read on every tick (connections added at run time). */
  definitions: readonly StreamDefinition[] | (() => readonly StreamDefinition[]);
  deps: PollDeps;
  /**
   * The client and stop signal of a stream's connection (one client and budget per token);
   * undefined when the connection left, and the stream is not started. Default: `deps.client`.
   */
  connectionOf?: (definition: StreamDefinition) =>
    | {
        client: PollDeps['client'];
        signal?: AbortSignal;
        /** Told of the stream's poll as it starts (the connection waits for it when it leaves). */
        track?(poll: Promise<unknown>): void;
      }
    | undefined;
  owner: string;
  /** How often the planner looks for due streams. */
  tickMs: number;
  /** Streams polled at once (default {@link POLL_LOOP_CONCURRENCY_DEFAULT}). */
  concurrency?: number;
  onOutcome?: (outcome: PollOutcome) => void;
  /**
   * A failure of the loop's own: a read of every stream state (`'state read'`, tried again
   * after {@link FULL_STATE_READ_RETRY_MAX_MS}'s doubling wait), or an error planning a tick
   * (`'tick'`). A stream's poll is never told here: see `onOutcome` and `onStreamHeld`.
   */
  onError?: (error: unknown, during: 'state read' | 'tick') => void;
  /**
   * A stream's poll that failed with nothing recorded, its failure's own write failing too (the
   * store refusing writes: a full disk): the loop holds the stream back in memory until
   * `retryAt`, as a stored backoff would. Told once per attempt, so once per backoff step.
   */
  onStreamHeld?: (held: HeldStream) => void;
  /** A held stream's poll that ended recorded again (its store writes go through). */
  onStreamResumed?: (resumed: { streamId: string; failures: number }) => void;
  /**
   * A small write of the loop's own to the store (the local runtime's: one item, rewritten).
   * While streams are held, the loop tries it once after they were, and every
   * {@link HELD_STORE_PROBE_MS} while it fails; once it goes through after failing (the disk has
   * room again), every held stream is due again at once, instead of waiting out a backoff that
   * reaches 30 minutes. A stream held while the probe goes through (a failure of its own, not the
   * store's) keeps its backoff. Without it, held streams wait out their backoffs.
   */
  probeWrites?: () => Promise<void>;
  /** The store took the loop's write again after refusing it: `released` held streams are due. */
  onStoreWritable?: (released: number) => void;
  /**
   * Tells of stream states changed outside the loop's polls (the admin API's resets, backfills
   * and removals): the loop re-reads those streams at once. Changes it is not told of wait for
   * its next full read ({@link FULL_STATE_READ_INTERVAL_MS}).
   */
  stateChanges?: StateChangeSource;
}

/** A stream held back in memory after a poll whose failure could not be stored. */
export interface HeldStream {
  streamId: string;
  /** The error its poll ended with (the store's, when it refused the failure's write). */
  error: string;
  /** Failed polls in a row: the stored ones and those not stored since. */
  failures: number;
  /** Not polled by this process before then ({@link failureBackoffMs} after the failure). */
  retryAt: number;
}
