// A stop signal that arrives while the CLI still loads (node's start, the bundle's build and
// import: a second or more), before `start` or `simulator` watches for one itself.

/** Where the hold is left for shared/cli/stop-signal.ts, which takes it over: the entry and the bundle share no module. */
export const EARLY_STOP_SIGNAL_KEY = Symbol.for('change-bridge.early-stop-signal');

/** The commands that stop cleanly on SIGINT and SIGTERM (design.md, CLI). */
const LONG_RUNNING_COMMANDS = new Set(['start', 'simulator']);

/**
 * Holds the first SIGINT or SIGTERM from now on if `argv` (without `node` and the script) runs
 * `start` or `simulator`, so that one arriving while the CLI loads is answered by the command's
 * clean stop (exit 0) once it has started instead of ending the process half-loaded; a second
 * one ends the process at once. The command's watch takes the hold over (it calls the function
 * left at {@link EARLY_STOP_SIGNAL_KEY}, which ends the hold and returns the signal held, if any).
 * Other commands keep Node's default: a signal ends them at once.
 * @returns the function that ends the hold (idempotent), also when no command took it over.
 */
export function holdEarlyStopSignal(argv) {
  if (!LONG_RUNNING_COMMANDS.has(argv[0])) return () => undefined;
  let held;
  const onSignal = (signal) => {
    if (held === undefined) {
      held = signal;
      return;
    }
    release();
    process.kill(process.pid, signal);
  };
  const release = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    if (globalThis[EARLY_STOP_SIGNAL_KEY] === release) delete globalThis[EARLY_STOP_SIGNAL_KEY];
    return held;
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  globalThis[EARLY_STOP_SIGNAL_KEY] = release;
  return release;
}
