import { z } from 'zod';
import { isWriteOperation } from '../writes/events-of-write.ts';
import {
  ADMIN_REQUEST_TIMEOUT_MS,
  adminTokenFrom,
  unreachableMessage,
} from './admin/api-client.ts';
import { CliExit, EXIT_FAILURE, EXIT_USAGE } from './exit-codes.ts';

/** The connector's error body, as the proxy passes it on. */
const ConnectorErrorSchema = z.looseObject({
  Message: z.string().nullable().optional(),
  RequestId: z.string().nullable().optional(),
});

/** The bridge's own error body (invalid input, no connection configured). */
const BridgeErrorSchema = z.looseObject({ error: z.string(), field: z.string().optional() });

/** What the proxy answered: the connector's status and body, unchanged. */
export interface BridgeCallResult {
  status: number;
  body: unknown;
  /** The `Retry-After` of the answer (the connector's, of a 429), when it carried one. */
  retryAfter?: string;
  /** The answer's `Request-Id` header (the connector's), when it carried one. */
  requestId?: string;
}

/**
 * Statuses of a write's answer after which the connector may have applied it all the same: a
 * timeout, an internal error, a gateway that lost the answer.
 */
const MAYBE_APPLIED_STATUSES: ReadonlySet<number> = new Set([408, 500, 502, 504]);

/**
 * Sends one operation through the bridge's connector proxy
 * (`POST <api>/api/connector/v1/<operation>`, `?connectionId=` when `connectionId` is given):
 * the bridge adds the credentials of that connection (else of its default one) and publishes
 * the events of a successful write. Sends `BRIDGE_ADMIN_TOKEN` as a bearer
 * token when set. Never sends connector tokens.
 * @throws CliExit(1) when the admin API cannot be reached, does not answer within `timeoutMs`
 * (the bridge's own answer is due 25 s after the call) or answers something not JSON.
 */
export async function callViaBridge(
  apiUrl: string,
  operation: string,
  body: object,
  env: Record<string, string | undefined>,
  timeoutMs = ADMIN_REQUEST_TIMEOUT_MS,
  connectionId?: string,
): Promise<BridgeCallResult> {
  const token = adminTokenFrom(env);
  const signal = AbortSignal.timeout(timeoutMs);
  // Reached, but no answer in time: the bridge may have sent it, so a write may be applied.
  const unanswered = () =>
    new CliExit(
      EXIT_FAILURE,
      `the bridge at ${apiUrl} did not answer ${operation} within ${timeoutMs / 1000} s${maybeAppliedNote(operation)}`,
    );
  let response: Response;
  try {
    const query =
      connectionId === undefined ? '' : `?connectionId=${encodeURIComponent(connectionId)}`;
    response = await fetch(`${apiUrl}/api/connector/v1/${operation}${query}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify(body),
      signal,
    });
  } catch (error) {
    if (signal.aborted) throw unanswered();
    throw new CliExit(EXIT_FAILURE, unreachableMessage(apiUrl, error));
  }
  const text = await response.text().catch((error: unknown) => {
    if (signal.aborted) throw unanswered();
    throw error;
  });
  const retryAfter = response.headers.get('retry-after');
  const requestId = response.headers.get('request-id');
  try {
    return {
      status: response.status,
      body: text === '' ? undefined : JSON.parse(text),
      ...(retryAfter === null ? {} : { retryAfter }),
      ...(requestId === null || requestId === '' ? {} : { requestId }),
    };
  } catch {
    throw new CliExit(
      EXIT_FAILURE,
      `${operation}: the bridge answered ${response.status} with a body that is not JSON${appliedNote(operation, response.status)}`,
    );
  }
}

/** For a write, that it may have been applied (an answer lost, or one of MAYBE_APPLIED_STATUSES); else ''. */
function maybeAppliedNote(operation: string): string {
  return isWriteOperation(operation)
    ? '; the write may have been applied: look for its effect before sending it again'
    : '';
}

/**
 * For a write the connector answered 200 but whose answer cannot be shown, that it was applied
 * (the command exits 1 all the same, and a caller that retries would apply it twice); else ''.
 * @example appliedNote('vouchers/add', 200) // '; the connector answered 200, so the write was applied: do not send it again'
 */
export function appliedNote(operation: string, status: number): string {
  return status === 200 && isWriteOperation(operation)
    ? '; the connector answered 200, so the write was applied: do not send it again'
    : '';
}

/**
 * The message of a failed proxied call: the bridge's own error (400 invalid input: exit 2)
 * or the connector's `Message` and `RequestId` (exit 1).
 */
export function bridgeCallFailure(operation: string, result: BridgeCallResult): CliExit {
  // Seconds or an HTTP date (RFC 9110): when the token's budget has room again.
  const wait =
    result.retryAfter === undefined
      ? ''
      : `; retry after ${/^\d+$/.test(result.retryAfter) ? `${result.retryAfter} s` : result.retryAfter}`;
  const own = BridgeErrorSchema.safeParse(result.body);
  if (own.success) {
    // A call the bridge did not send (429) says when the token's pause ends, as the connector's.
    return new CliExit(
      result.status === 400 ? EXIT_USAGE : EXIT_FAILURE,
      `${own.data.error}${wait}`,
    );
  }
  const connector = ConnectorErrorSchema.safeParse(result.body);
  const message = connector.success ? (connector.data.Message ?? '') : '';
  // The body's, else the header's: an answer whose body names none still has it there.
  const id = (connector.success && connector.data.RequestId) || result.requestId;
  const requestId = id ? ` (RequestId ${id})` : '';
  const maybeApplied = MAYBE_APPLIED_STATUSES.has(result.status) ? maybeAppliedNote(operation) : '';
  return new CliExit(
    EXIT_FAILURE,
    `${operation} failed (HTTP ${result.status}): ${message}${requestId}${wait}${maybeApplied}`,
  );
}
