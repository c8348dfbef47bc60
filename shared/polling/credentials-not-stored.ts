import type { Clock } from '../clock.ts';
import type { SecretWithoutValueError } from '../connector/connection-secrets.ts';
import { BridgeError } from '../errors.ts';
import type { StateStore } from '../state/state-store.ts';
import { markConnectionStreams } from './connection-streams-marking.ts';
import type { StreamDefinition } from './poll-context.ts';
import { nextDueTime } from './schedule.ts';

/**
 * A connection whose credentials are not stored yet: its secret (or, for a stored connection,
 * the deployment secret) holds no value, as the stack creates every secret. Carries the
 * connection's streams, so it can be recorded on them; the message is the `parkedReason` they
 * show. Not retryable: nothing changes until the operator stores the credentials JSON.
 */
export class CredentialsNotStoredError extends BridgeError {
  override name = 'CredentialsNotStoredError';
  constructor(
    readonly connectionId: string,
    readonly definitions: readonly StreamDefinition[],
    cause: SecretWithoutValueError,
  ) {
    super(
      `credentials not stored yet: the ${cause.what} ${cause.secretId} has no value: store the credentials JSON`,
      { cause, retryable: false },
    );
  }
}

/**
 * Marks each of `streamIds` (the connection's streams) parked with the error's reason, as an
 * authorization error parks one (`streams list` shows `parked` and the reason; the
 * `StreamsParked` alarm counts it), and due at its next slot of its interval: the planner plans
 * it once a POLL_INTERVAL, not every run, and the first job after the secret gets a value polls
 * (no refused credential is kept, so the client opened from the secret unparks it). Its
 * watermark and failure count stay as they are: no poll was made. A stream whose state changed
 * meanwhile is left as it is. Returns the streams marked and the earliest next due time, for a
 * stored connection's own.
 */
export function recordCredentialsNotStored(
  streamIds: readonly string[],
  error: CredentialsNotStoredError,
  deps: { store: StateStore; clock: Clock },
): Promise<{ marked: string[]; nextDueAt: number | undefined }> {
  return markConnectionStreams(streamIds, error.definitions, deps, (stored, definition, now) => {
    // No credential was refused: any the secret holds next is tried at once.
    const { parkedCredential: _refused, ...rest } = stored;
    const nextDueAt = nextDueTime(now, definition.intervalMs, definition.phaseMs ?? 0);
    return { ...rest, parked: true, parkedReason: error.message, nextDueAt };
  });
}
