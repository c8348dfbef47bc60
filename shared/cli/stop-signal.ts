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

/** Why a command's start-up ended early: the stop signal it received meanwhile. */
export class StopSignalReceived extends BridgeError {
  override name = 'StopSignalReceived';
  readonly signal: NodeJS.Signals;

  constructor(signal: NodeJS.Signals) {
    super(`${signal} received while starting`);
    this.signal = signal;
  }
}

/** A watch for the first SIGINT or SIGTERM, from {@link watchStopSignal}. */
interface StopSignalWatch {
  /** Resolves with the first SIGINT or SIGTERM received since the watch began. */
  received: Promise<NodeJS.Signals>;
  /**
   * Aborted as that signal arrives (at once, not a promise's turn later), its reason a
   * {@link StopSignalReceived}: for a start-up that checks between its steps.
   */
  aborted: AbortSignal;
  /** Stops watching (idempotent): a later signal has Node's default effect again. */
  dispose(): void;
}

/**
 * Catches the first SIGINT or SIGTERM from now on, for a long-running command (`start`,
 * `simulator`) to stop cleanly. Begun before the command starts its parts, so a signal that
 * arrives while they start (a process manager stopping it early, a quick Ctrl-C) is kept and
 * answered by a clean stop (at the start-up's next step, for a command that checks
 * {@link StopSignalWatch.aborted}), instead of killing the process half-way with no exit code of
 * its own. It takes over the entry's hold of a signal that arrived while the CLI loaded, before
 * the command ran (bin/early-stop-signal.js): that one counts as received. After the first
 * signal the watch ends: a second one ends the process at once.
 * @example const stop = watchStopSignal(); try { await begin(); await stop.received; } finally { stop.dispose(); }
 */
function watchStopSignal(): StopSignalWatch {
  let dispose = () => {};
  const abort = new AbortController();
  const received = new Promise<NodeJS.Signals>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      dispose();
      abort.abort(new StopSignalReceived(signal));
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
  return { received, aborted: abort.signal, dispose };
}

/**
 * Runs a long-running command under a {@link watchStopSignal} begun before it: `run` gets the
 * promise of the first SIGINT or SIGTERM, and an AbortSignal aborted as it arrives (its reason a
 * {@link StopSignalReceived}) for its start-up to end early; the watch ends when `run` does.
 * @example await withStopSignal((stopSignal, startUp) => runStart(flags, io, stopSignal, startUp));
 */
export async function withStopSignal<T>(
  run: (stopSignal: Promise<NodeJS.Signals>, aborted: AbortSignal) => Promise<T>,
): Promise<T> {
  const watch = watchStopSignal();
  try {
    return await run(watch.received, watch.aborted);
  } finally {
    watch.dispose();
  }
}
