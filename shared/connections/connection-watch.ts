import type { Clock } from '../clock.ts';
import { BridgeError } from '../errors.ts';
import type { ConnectionStore } from './connection-store.ts';

/**
 * How often a poll job re-reads its stored connection while it runs: a job of quiet streams
 * ends before the first re-read, and a long first sync stops within this of a `disable`.
 */
export const CONNECTION_WATCH_MS = 5_000;

/** Why a poll job of a stored connection stopped: it was disabled, removed or registered anew. */
export class ConnectionGoneError extends BridgeError {
  override name = 'ConnectionGoneError';
}

/** A running {@link watchConnection}. */
export interface ConnectionWatch {
  /** Aborted once the registration is no longer enabled in the store. */
  signal: AbortSignal;
  /** Ends the watch (the job is done). */
  stop(): void;
}

/**
 * Watches one registration of a stored connection (`id` created at `registeredAt`) while a
 * poll job of it runs, where no admin change reaches the job (a Lambda): re-reads it every
 * `everyMs` and aborts the signal once it is disabled, removed, or removed and added again.
 * The job's streams then stop at once (in-flight requests aborted, no further stream polled),
 * so a removed connection's state is not written back. A failed read is not taken for a change.
 */
export function watchConnection(
  store: Pick<ConnectionStore, 'get'>,
  id: string,
  registeredAt: string,
  clock: Clock,
  everyMs = CONNECTION_WATCH_MS,
): ConnectionWatch {
  const gone = new AbortController();
  const stopped = new AbortController();
  const watch = async () => {
    while (!stopped.signal.aborted) {
      await clock.sleep(everyMs, stopped.signal);
      const stored = await store.get(id).catch(() => 'unread' as const);
      if (stored === 'unread' || stopped.signal.aborted) continue;
      if (!stored?.enabled || stored.createdAt !== registeredAt) {
        gone.abort(new ConnectionGoneError(`connection ${id} was disabled or removed`));
        return;
      }
    }
  };
  watch().catch(() => undefined);
  return { signal: gone.signal, stop: () => stopped.abort() };
}
