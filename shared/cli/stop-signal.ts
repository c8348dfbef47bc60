import { BridgeError } from '../errors.ts';

/**
 * Where bin/change-bridge.js leaves its hold of a stop signal that arrived while the CLI loaded
 * (bin/early-stop-signal.js): a function that ends the hold and returns the signal held.
 */
const EARLY_STOP_SIGNAL_KEY = Symbol.for('change-bridge.early-stop-signal');

/**
 * Ends the entry's hold of an early stop signal, if it holds one, and returns the signal it
 * received while the CLI loaded, or undefined.
 */
function takeEarlyStopSignal(): NodeJS.Signals | undefined {
  const release: unknown = Reflect.get(globalThis, EARLY_STOP_SIGNAL_KEY);
  if (typeof release !== 'function') return undefined;
  const held: unknown = release();
  return held === 'SIGINT' || held === 'SIGTERM' ? held : undefined;
}

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
 * with no exit code of its own. It takes over the entry's hold of a signal that arrived while
 * the CLI loaded, before the command ran (bin/early-stop-signal.js): that one counts as
 * received. After the first signal the watch ends: a second one ends the process at once.
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
    // Taken over after the watch's own listeners are on, so no signal falls between the two.
    const early = takeEarlyStopSignal();
    if (early !== undefined) onSignal(early);
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

/** Why a command's start-up ended early: the stop signal it received meanwhile. */
export class StopSignalReceived extends BridgeError {
  override name = 'StopSignalReceived';
  readonly signal: NodeJS.Signals;

  constructor(signal: NodeJS.Signals) {
    super(`${signal} received while starting`);
    this.signal = signal;
  }
}

/**
 * An AbortSignal aborted once `stopSignal` resolves, its reason a {@link StopSignalReceived}
 * naming the signal: for work that checks for a stop between its steps (start's start-up, which
 * then ends early and closes what it opened) rather than once it is running.
 * @example const startUp = abortedOnStop(stopSignal); await startBridge(config, { ...deps, stopSignal: startUp });
 */
export function abortedOnStop(stopSignal: Promise<NodeJS.Signals>): AbortSignal {
  const controller = new AbortController();
  void stopSignal.then((signal) => controller.abort(new StopSignalReceived(signal)));
  return controller.signal;
}
