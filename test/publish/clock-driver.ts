import type { ManualClock } from '../../shared/clock.ts';

/**
 * Awaits `promise` while moving `clock` forward in `stepMs` steps, so code that backs off
 * on the clock finishes without real waiting.
 */
export async function driveClock<T>(
  clock: ManualClock,
  promise: Promise<T>,
  stepMs = 10_000,
): Promise<T> {
  let settled = false;
  promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  for (let step = 0; !settled && step < 1_000; step++) await clock.advance(stepMs);
  return promise;
}
