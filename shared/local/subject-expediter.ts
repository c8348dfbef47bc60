import { type Clock, systemClock } from '../clock.ts';
import { linkedSignal } from '../concurrency.ts';
import { type DispatchLanes, type LaneKey, laneGroup } from './dispatch-lanes.ts';

/**
 * How soon a subject whose bulk event is in flight is looked at again, the first time; each
 * look that finds it still in flight doubles the wait, up to {@link EXPEDITE_RETRY_MAX_MS}.
 */
export const EXPEDITE_RETRY_MS = 100;
/**
 * How soon a look woken by the handled event (see SubjectExpediter.wake) that still finds it in
 * flight looks again: its batch deletes it as it ends, within milliseconds (doubling from here).
 */
export const EXPEDITE_WOKEN_RETRY_MS = 20;
/**
 * The longest wait between two looks at a subject held in flight: a bulk batch may wait minutes
 * on a slow endpoint, and each look walks the bulk lane's index (~0.2 ms for 100,000 messages).
 */
export const EXPEDITE_RETRY_MAX_MS = 2_000;

/**
 * Moves the messages of a group from the bulk lane's queue to the back of the live lane's, in
 * their order, unless one is in flight (see DiskQueue.moveMessageGroup).
 */
export type MoveGroup = (group: string) => Promise<{ moved: number; held: number }>;

/** One subject being looked at (see SubjectExpediter). */
interface Look {
  /** Another look is asked for (a change came during this one). */
  again: boolean;
  /** While a held event makes the look wait: what ends that wait early (see SubjectExpediter.wake). */
  wake?: AbortController;
  /**
   * A bulk event of the subject was handled since the last look: its message leaves the queue as
   * its batch ends, a moment after, so a look that still finds it held looks again after the
   * first wait, not the doubled one.
   */
  woken?: boolean;
}

/** Options of {@link SubjectExpediter}. */
export interface SubjectExpediterOptions {
  lanes: DispatchLanes;
  move: MoveGroup;
  /** Told of a look that failed (the events stay in the bulk lane, in order). */
  onError: (error: unknown) => void;
  clock?: Clock;
  retryMs?: number;
}

/**
 * Takes a subject's events out of the bulk lane's backlog as soon as a live change of it comes.
 * A subject's events keep their order across the lanes, so a live change of a subject whose
 * backfill event still waits in the bulk lane is queued behind it there (see DispatchLanes). But
 * the bulk lane takes nothing while a backfill reads, then works through up to its backlog
 * bound of events: measured through `change-bridge start`, live changes made during an emitting
 * backfill of 100,000 customers arrived after 26 s (p50) and 37 s (p99) with the connector
 * unthrottled, p99 16.5 s under its limit (bench/latency-backfill.ts). Instead, the subject's
 * events there, the live change last, move together to the back of the live lane, oldest first,
 * and go out with the live work, still in their order. When one of them is in flight (a bulk
 * batch holds it), none moves, as that one may not have taken its turn yet: the subject is looked
 * at again after {@link EXPEDITE_RETRY_MS}, then at doubling waits up to
 * {@link EXPEDITE_RETRY_MAX_MS}, until it is handled (or back in the lane: then it moves with
 * the rest). While the lanes are unsure what waits in the bulk lane (bulk events of an earlier
 * version on disk, a bulk send that failed half way), nothing moves. One look at a time per
 * subject; a change that comes during one is looked for by another right after.
 * @example expediter.expedite(laneKey(event)); // after its bulk send
 */
export class SubjectExpediter {
  readonly #options: SubjectExpediterOptions;
  /** Subjects being looked at. */
  readonly #looking = new Map<LaneKey, Look>();
  readonly #runs = new Set<Promise<void>>();
  readonly #stop = new AbortController();

  constructor(options: SubjectExpediterOptions) {
    this.#options = options;
  }

  /** A live event of `key` has just been queued in the bulk lane: moves the subject's events. */
  expedite(key: LaneKey): void {
    const looking = this.#looking.get(key);
    if (looking !== undefined) {
      looking.again = true;
      return;
    }
    if (this.#stop.signal.aborted) return;
    const state: Look = { again: false };
    this.#looking.set(key, state);
    const run = this.#run(key, state).catch((error: unknown) => {
      this.#looking.delete(key);
      if (!this.#stop.signal.aborted) this.#options.onError(error);
    });
    this.#runs.add(run);
    void run.finally(() => this.#runs.delete(run));
  }

  /**
   * A bulk event of `key` has been handled (its message leaves the bulk lane as its batch ends,
   * a moment after): a look at `key` waiting because that event was in flight looks again now,
   * instead of at the end of its wait (up to {@link EXPEDITE_RETRY_MAX_MS}), and one that still
   * finds the message there looks again after {@link EXPEDITE_WOKEN_RETRY_MS}, not a doubled wait.
   * Nothing for a subject not being looked at.
   */
  wake(key: LaneKey): void {
    const look = this.#looking.get(key);
    if (look === undefined) return;
    look.woken = true;
    look.wake?.abort();
  }

  /** Resolves once no look runs (tests; a stop). */
  async idle(): Promise<void> {
    while (this.#runs.size > 0) await Promise.all(this.#runs);
  }

  /** Starts no more looks and ends the waits between them; await {@link idle} after. */
  stop(): void {
    this.#stop.abort();
  }

  async #run(key: LaneKey, state: Look): Promise<void> {
    const { lanes, move } = this.#options;
    const clock = this.#options.clock ?? systemClock;
    const firstRetryMs = this.#options.retryMs ?? EXPEDITE_RETRY_MS;
    let retryMs = firstRetryMs;
    for (;;) {
      state.again = false;
      if (this.#stop.signal.aborted || !lanes.sure) break;
      // A bulk send under way may hold an earlier event of the subject: it lands first.
      await lanes.sendsSettled();
      const { moved, held } = await move(laneGroup(key));
      lanes.moved(key, moved);
      if (held > 0) {
        // The event handled is still being deleted: its batch ends in a moment.
        if (state.woken) retryMs = Math.min(firstRetryMs, EXPEDITE_WOKEN_RETRY_MS);
        state.woken = false;
        state.wake = new AbortController();
        const wait = linkedSignal(this.#stop.signal, state.wake.signal);
        // Woken early (see wake) or stopped: either ends the wait; the loop tells them apart.
        await clock.sleep(retryMs, wait.signal).catch(() => undefined);
        wait.release();
        state.wake = undefined;
        retryMs = Math.min(2 * retryMs, EXPEDITE_RETRY_MAX_MS);
      } else if (!state.again) break;
    }
    this.#looking.delete(key);
  }
}
