import type { Clock } from '../clock.ts';
import { BridgeError, describeThrown } from '../errors.ts';
import type { StateStore } from '../state/state-store.ts';
import { markConnectionStreams } from './connection-streams-marking.ts';
import type { StreamDefinition } from './poll-context.ts';
import { failureBackoffMs } from './schedule.ts';

/**
 * A stored connection whose AccessToken could not be opened (KMS refused its data key, or the
 * token was sealed under another key): its streams, so the failure can be recorded on them.
 * Retryable when the cause is (KMS throttled or unreachable).
 */
export class ConnectionUnopenedError extends BridgeError {
  override name = 'ConnectionUnopenedError';
  constructor(
    readonly connectionId: string,
    readonly definitions: readonly StreamDefinition[],
    cause: unknown,
  ) {
    super(`its AccessToken could not be opened: ${causeChain(cause)}`, {
      cause,
      retryable: cause instanceof BridgeError && cause.retryable,
    });
  }
}

/**
 * An error and its causes as one line, each message once, the last one with its name (an AWS
 * SDK error's name is its code: `DisabledException`). Pure.
 */
function causeChain(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && depth < 5; depth++) {
    const next = current instanceof Error ? current.cause : undefined;
    const text = describeThrown(current);
    parts.push(next === undefined && current instanceof Error ? `${current.name}: ${text}` : text);
    current = next;
  }
  return parts.join(': ');
}

/**
 * Records on each of `streamIds` (those of the connection's streams) that its poll could not
 * start because the token did not open: `lastError` says why (`streams list` shows it), the
 * failure counts, and the stream is due again after the usual backoff, as after any failed
 * poll. A stream whose state changed meanwhile is left as it is. Returns the earliest next due
 * time recorded, for the connection's own.
 */
export async function recordUnopenedConnection(
  streamIds: readonly string[],
  error: ConnectionUnopenedError,
  deps: { store: StateStore; clock: Clock },
): Promise<number | undefined> {
  const { nextDueAt } = await markConnectionStreams(
    streamIds,
    error.definitions,
    deps,
    (stored, definition, now) => {
      const failures = stored.consecutiveFailures + 1;
      return {
        ...stored,
        lastPollAt: now,
        consecutiveFailures: failures,
        lastError: error.message,
        nextDueAt: now + failureBackoffMs(failures, definition.intervalMs),
      };
    },
  );
  return nextDueAt;
}
