/** Polling for the views: one task, run again a while after each run ends. */

import { say, unsay } from './dom.js';

/**
 * Runs `task` now and again `everyMs` after each run ends, until `stop()`; a failure is
 * shown in the status line and the polling goes on, and the next run that succeeds clears it
 * (unless another message has replaced it). `now()` runs it at once (after an
 * action) and restarts the wait.
 * @param {() => Promise<void>} task
 * @param {number} everyMs
 * @returns {{ now: () => Promise<void>, stop: () => void }}
 * @example const poller = every(loadStreams, 5000); // later: poller.stop()
 */
export function every(task, everyMs) {
  let stopped = false;
  /** @type {number | undefined} */
  let timer;
  /** @type {string | undefined} */
  let failure;
  const run = async () => {
    clearTimeout(timer);
    if (stopped) return;
    try {
      await task();
      if (failure !== undefined) unsay(failure);
      failure = undefined;
    } catch (error) {
      failure = String(/** @type {Error} */ (error).message ?? error);
      say(failure, true);
    }
    if (stopped) return;
    clearTimeout(timer);
    timer = window.setTimeout(run, everyMs);
  };
  run();
  return {
    now: run,
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
