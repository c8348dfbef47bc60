import type { ManualClock } from '../../shared/clock.ts';

/**
 * Resolves `work` while moving `clock` forward whenever the code under test is parked on
 * one of its sleeps; real I/O in between gets real (short) turns of the event loop.
 */
export async function driveClock<T>(
  clock: ManualClock,
  work: Promise<T>,
  stepMs = 100,
): Promise<T> {
  let settled = false;
  const done = work.finally(() => {
    settled = true;
  });
  // Handled here while the loop turns: a rejection is the caller's, once `done` is returned.
  done.catch(() => undefined);
  while (!settled) {
    if (clock.pendingSleeps > 0) await clock.advance(stepMs);
    else await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return done;
}
