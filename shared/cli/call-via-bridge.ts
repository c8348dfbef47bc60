import { z } from 'zod';
import { ADMIN_REQUEST_TIMEOUT_MS } from './admin/api-client.ts';
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
}

/**
 * Sends one operation through the bridge's connector proxy
 * (`POST <api>/api/connector/v1/<operation>`): the bridge adds the connection's credentials
 * and publishes the events of a successful write. Sends `BRIDGE_ADMIN_TOKEN` as a bearer
 * token when set. Never sends connector tokens.
 * @throws CliExit(1) when the admin API cannot be reached or answers something not JSON.
 */
export async function callViaBridge(
  apiUrl: string,
  operation: string,
  body: object,
  env: Record<string, string | undefined>,
): Promise<BridgeCallResult> {
  const token = env.BRIDGE_ADMIN_TOKEN;
  let response: Response;
  try {
    response = await fetch(`${apiUrl}/api/connector/v1/${operation}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(ADMIN_REQUEST_TIMEOUT_MS),
    });
  } catch (error) {
    throw new CliExit(
      EXIT_FAILURE,
      `cannot reach the admin API at ${apiUrl} (${(error as Error).message}); is "change-bridge start" running? Use --api URL or BRIDGE_PORT to point elsewhere`,
    );
  }
  const text = await response.text();
  const retryAfter = response.headers.get('retry-after');
  try {
    return {
      status: response.status,
      body: text === '' ? undefined : JSON.parse(text),
      ...(retryAfter === null ? {} : { retryAfter }),
    };
  } catch {
    throw new CliExit(
      EXIT_FAILURE,
      `${operation}: the bridge answered ${response.status} with a body that is not JSON`,
    );
  }
}

/**
 * The message of a failed proxied call: the bridge's own error (400 invalid input: exit 2)
 * or the connector's `Message` and `RequestId` (exit 1).
 */
export function bridgeCallFailure(operation: string, result: BridgeCallResult): CliExit {
  const own = BridgeErrorSchema.safeParse(result.body);
  if (own.success) {
    return new CliExit(result.status === 400 ? EXIT_USAGE : EXIT_FAILURE, own.data.error);
  }
  const connector = ConnectorErrorSchema.safeParse(result.body);
  const message = connector.success ? (connector.data.Message ?? '') : '';
  const requestId =
    connector.success && connector.data.RequestId ? ` (RequestId ${connector.data.RequestId})` : '';
  // Seconds or an HTTP date (RFC 9110): when the token's budget has room again.
  const wait =
    result.retryAfter === undefined
      ? ''
      : `; retry after ${/^\d+$/.test(result.retryAfter) ? `${result.retryAfter} s` : result.retryAfter}`;
  return new CliExit(
    EXIT_FAILURE,
    `${operation} failed (HTTP ${result.status}): ${message}${requestId}${wait}`,
  );
}
