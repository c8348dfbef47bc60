/** A watch for the first SIGINT or SIGTERM, from {@link watchStopSignal}. */
interface StopSignalWatch {
  /** Resolves with the first SIGINT or SIGTERM received since the watch began. */
  received: Promise<NodeJS.Signals>;
  /** Stops watching (idempotent): a later signal has Node's default effect again. */
  dispose(): void;
}

/**
 * Catches the first SIGINT or SIGTERM from now on, for a long-running command (`start`,
 * `simulator`) to stop cleanly. Begun before the command starts its parts, so a signal that
 * arrives while they start (a process manager stopping it early, a quick Ctrl-C) is kept and
 * answered by a clean stop once they have started, instead of killing the process half-way
 * with no exit code of its own. After the first signal the watch ends: a second one ends the
 * process at once.
 * @example const stop = watchStopSignal(); try { await begin(); await stop.received; } finally { stop.dispose(); }
 */
function watchStopSignal(): StopSignalWatch {
  let dispose = () => {};
  const received = new Promise<NodeJS.Signals>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      dispose();
      resolve(signal);
    };
    dispose = () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  return { received, dispose };
}

/**
 * Runs a long-running command under a {@link watchStopSignal} begun before it: `run` gets the
 * promise of the first SIGINT or SIGTERM, and the watch ends when `run` does.
 * @example await withStopSignal((stopSignal) => runStart(flags, io, stopSignal));
 */
export async function withStopSignal<T>(
  run: (stopSignal: Promise<NodeJS.Signals>) => Promise<T>,
): Promise<T> {
  const watch = watchStopSignal();
  try {
    return await run(watch.received);
  } finally {
    watch.dispose();
  }
}
