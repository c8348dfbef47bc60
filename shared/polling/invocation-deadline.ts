import type { Clock } from '../clock.ts';
import type { StreamState } from '../state/state-store.ts';

/** The most a poll invocation keeps back before its timeout to save state and answer. */
export const DEADLINE_MARGIN_MAX_MS = 30_000;

/**
 * When a poll invocation stops starting pages: `remainingMs` (its time left) from `nowMs`,
 * less a margin to save state in time, of 30 s but never more than a quarter of the time
 * left, so a short timeout still polls (a 20 s timeout polls for 15 s; a fixed 30 s margin
 * left it none). Pure.
 * @example pollDeadline(0, 120_000) // 90_000
 */
export function pollDeadline(nowMs: number, remainingMs: number): number {
  return nowMs + remainingMs - Math.min(DEADLINE_MARGIN_MAX_MS, remainingMs / 4);
}

/** The reason a poll's signal gives when its invocation's deadline comes. */
export class PollDeadlineReached extends Error {
  override name = 'PollDeadlineReached';
}

/**
 * A signal that aborts when `clock` reaches `deadline`, so what a poll waits for past it (a
 * 429's Retry-After, the token budget's pause, a request in flight) ends there, within the
 * margin kept to save state and answer: a wait of 120 s at a 120 s timeout otherwise ran past
 * the timeout and Lambda ended the invocation mid-wait. `cancel` drops the timer.
 * @example const stop = abortAtDeadline(clock, deadline); try { ... } finally { stop.cancel(); }
 */
export function abortAtDeadline(
  clock: Clock,
  deadline: number,
): { signal: AbortSignal; cancel: () => void } {
  const controller = new AbortController();
  const timer = new AbortController();
  clock.sleep(Math.max(0, deadline - clock.now()), timer.signal).then(
    () => controller.abort(new PollDeadlineReached('the poll invocation reached its deadline')),
    () => undefined,
  );
  return { signal: controller.signal, cancel: () => timer.abort() };
}

/**
 * Whether a stream's watermark age says anything about it: only past its first sync. A
 * first sync (or a backfill, which starts one) walks windows from years back, and its
 * watermark's age is its progress, not a stall. Pure.
 */
export function reportsWatermarkAge(
  state: StreamState | undefined,
): state is StreamState & { watermark: string } {
  return state?.initialSyncDone === true && typeof state.watermark === 'string';
}
