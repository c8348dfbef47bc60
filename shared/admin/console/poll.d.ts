/** Types of poll.js (a browser module of the console, also tested under Node). */

/**
 * Runs `task` now and again `everyMs` after each run ends, until `stop()`; a failure shows in
 * the status line until the next run that succeeds.
 */
export function every(
  task: () => Promise<void>,
  everyMs: number,
): { now: () => Promise<void>; stop: () => void };
