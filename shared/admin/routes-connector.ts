import { z } from 'zod';
import { ConnectionIdSchema } from '../connections/connection.ts';
import { ConnectionNotFoundError } from '../connections/connection-admin.ts';
import { refuseCredentialFields } from '../connector/credential-fields.ts';
import { ConnectorError } from '../connector/errors.ts';
import { OPERATION_NAMES, OPERATIONS, type OperationName } from '../connector/operations.ts';
import { ConnectionUnwritableError } from '../writes/connection-write-through.ts';
import { isWriteOperation } from '../writes/events-of-write.ts';
import { AdminConflictError, AdminNotFoundError, type AdminRoute, defineRoute } from './route.ts';

/** The connector's answer, passed through unchanged (success body or error body). */
const ConnectorAnswerSchema = z.looseObject({});

/** Every request body is a JSON object (the operation's schema checked it in detail). */
const RequestBodySchema = z.record(z.string(), z.unknown());

/** Which connection's credentials a proxied call goes with. */
export const ConnectorProxyQuerySchema = z
  .object({
    connectionId: ConnectionIdSchema.optional().meta({
      description:
        "The connection whose credentials the call goes with, one added at run time included; default: the environment's (`local` under `start`; in AWS the only connection of the props)",
    }),
  })
  .strict();

/** The proxy's connection lookup failures as the router answers them: unknown 404, unusable 409. */
function connectionRefusal(error: unknown): unknown {
  if (error instanceof ConnectionNotFoundError)
    return new AdminNotFoundError(error.message, { cause: error });
  if (error instanceof ConnectionUnwritableError)
    return new AdminConflictError(error.message, { cause: error });
  return error;
}

function operationId(name: string): string {
  const [entity = '', operation = ''] = name.split('/');
  return `connector${entity.charAt(0).toUpperCase()}${entity.slice(1)}${operation.charAt(0).toUpperCase()}${operation.slice(1)}`;
}

function proxyRoute(name: OperationName): AdminRoute {
  const spec = OPERATIONS[name];
  const write = isWriteOperation(name);
  const route = defineRoute({
    method: 'POST',
    path: spec.path,
    operationId: operationId(name),
    summary: write
      ? `${name} through the bridge with the credentials of the connection named (connectionId), else the default one; events are published at once on success`
      : `${name} through the bridge with the credentials of the connection named (connectionId), else the default one`,
    tag: 'connector',
    query: ConnectorProxyQuerySchema,
    // Strict: ClientToken, AccessToken and Client are refused (400): they come from the bridge.
    body: spec.request,
    success: { status: 200, schema: ConnectorAnswerSchema },
    handle: async ({ body, query }, deps) => {
      if (!deps.writeThrough) {
        throw new AdminNotFoundError('no connection is configured for the connector proxy');
      }
      try {
        const result = await deps.writeThrough.forward(
          name,
          RequestBodySchema.parse(body),
          query.connectionId,
        );
        // A 429's Retry-After tells the caller when to come back, as it told the bridge.
        const headers = Object.keys(result.headers).length > 0 ? { headers: result.headers } : {};
        return { status: result.status, body: result.body, ...headers };
      } catch (error) {
        if (error instanceof ConnectorError && error.status === undefined) {
          // Not sent: no slot of the token's budget before the call's deadline.
          // With the Retry-After of the token's pause, when it is paused (RFC 9110, 10.2.3).
          if (error.category === 'rate-limit')
            return {
              status: 429,
              body: { error: error.message },
              ...(error.retryAfterMs === undefined
                ? {}
                : {
                    headers: {
                      'retry-after': String(Math.max(1, Math.ceil(error.retryAfterMs / 1000))),
                    },
                  }),
            };
          // No answer at all (network, timeout after retries): a gateway error, not ours. A
          // write may have reached the connector all the same (an add says so already), unless
          // it never reached it (the connection refused).
          const unknown =
            write && !error.unsent && !/may have been applied/.test(error.message)
              ? '; it may have been applied: look for its effect before sending it again'
              : '';
          return { status: 502, body: { error: `${error.message}${unknown}` } };
        }
        throw connectionRefusal(error);
      }
    },
  });
  return {
    ...route,
    // A credential in the body is named with why, before the schema calls it an unknown field.
    invoke(request, id, deps) {
      // Named as the user configured the connection called: a stored one's token is no variable's.
      const query = ConnectorProxyQuerySchema.safeParse(request.query);
      const connectionId = query.success ? query.data.connectionId : undefined;
      refuseCredentialFields(
        request.body,
        `${name} request`,
        deps.writeThrough?.credentialsOf?.(connectionId),
      );
      return route.invoke(request, id, deps);
    },
  };
}

/**
 * `POST /api/connector/v1/<entity>/<operation>` for every operation of connector-api.md:
 * the body is the operation's request without the envelope, validated with its request
 * schema; the connector's status and body come back unchanged.
 */
export const CONNECTOR_ROUTES: readonly AdminRoute[] = OPERATION_NAMES.map(proxyRoute);
