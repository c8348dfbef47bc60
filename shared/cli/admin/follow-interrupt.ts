import { constants } from 'node:os';
import { CliExit, type CliIo, processIo } from '../exit-codes.ts';
import { StopSignalReceived, withStopSignal } from '../stop-signal.ts';

/**
 * Runs `follow` (a command watching a job the bridge runs, such as `backfill`'s progress) so
 * that Ctrl-C or a SIGTERM ends the watch, not the job: `follow` gets an AbortSignal, aborted by
 * the first such signal, for its sleeps and waits; the command then exits 128 + the signal's
 * number (130 for SIGINT, as a shell reports an interrupted command) with `stopped` on stderr,
 * which says the job keeps running and how to follow it again. Signals are watched only for the
 * process's own output (the real CLI), not in a run of the CLI inside another program.
 * @throws CliExit with that code and message once a signal ends the watch
 */
export async function followUntilStopped<T>(
  io: CliIo,
  stopped: (signal: NodeJS.Signals) => string,
  follow: (stop: AbortSignal | undefined) => Promise<T>,
): Promise<T> {
  if (io !== processIo) return follow(undefined);
  try {
    return await withStopSignal((_received, aborted) => follow(aborted));
  } catch (error) {
    if (!(error instanceof StopSignalReceived)) throw error;
    throw new CliExit(128 + constants.signals[error.signal], stopped(error.signal));
  }
}
