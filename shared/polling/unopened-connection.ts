import type { Clock } from '../clock.ts';
import { BridgeError, describeThrown } from '../errors.ts';
import { StateConflictError, type StateStore } from '../state/state-store.ts';
import type { StreamDefinition } from './poll-context.ts';
import { initialStreamState } from './poll-stream.ts';
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
  const byId = new Map(error.definitions.map((d) => [d.streamId, d]));
  let earliest: number | undefined;
  for (const streamId of streamIds) {
    const definition = byId.get(streamId);
    if (!definition) continue;
    const now = deps.clock.now();
    const stored = (await deps.store.getStream(streamId)) ?? initialStreamState(definition, now);
    const failures = stored.consecutiveFailures + 1;
    const nextDueAt = now + failureBackoffMs(failures, definition.intervalMs);
    try {
      await deps.store.saveStream(
        {
          ...stored,
          lastPollAt: now,
          consecutiveFailures: failures,
          lastError: error.message,
          nextDueAt,
        },
        stored.version,
      );
    } catch (conflict) {
      if (conflict instanceof StateConflictError) continue;
      throw conflict;
    }
    earliest = earliest === undefined ? nextDueAt : Math.min(earliest, nextDueAt);
  }
  return earliest;
}
