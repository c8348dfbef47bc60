import {
  AddConnectionInputSchema,
  type ConnectionAdminDeps,
  ConnectionBusyError,
  ConnectionNotFoundError,
  ConnectionReadOnlyError,
  getConnectionView,
  registerConnection,
  removeConnection,
  setConnectionEnabled,
} from '../connections/connection-admin.ts';
import { ConnectionDetailSchema } from '../connections/connection-detail.ts';
import { ConnectionExistsError } from '../connections/connection-store.ts';
import type { AdminDeps } from './admin-deps.ts';
import { endBackfillParts } from './backfill-ending.ts';
import { listConnectionPage } from './connection-list-page.ts';
import { defineReadRoute } from './read-route.ts';
import { AdminConflictError, AdminNotFoundError, type AdminRoute, defineRoute } from './route.ts';
import {
  ConnectionListQuerySchema,
  ConnectionListSchema,
  ConnectionRemovedSchema,
  ConnectionViewSchema,
  EmptySchema,
  RemoveConnectionQuerySchema,
} from './schemas.ts';

/**
 * Runs a connection operation, mapping its outcomes to the router's errors: unknown id → 404;
 * a taken id, the environment's read-only connection, or a removal a running poll job holds up → 409. Never echoes a token.
 */
async function withConnections<T>(
  deps: AdminDeps,
  run: (connections: ConnectionAdminDeps) => Promise<T>,
): Promise<T> {
  if (!deps.connections) throw new AdminNotFoundError('connections are not managed here');
  try {
    return await run(deps.connections);
  } catch (error) {
    if (error instanceof ConnectionNotFoundError) {
      throw new AdminNotFoundError(error.message, { cause: error });
    }
    if (error instanceof ConnectionExistsError && error.differences !== undefined) {
      throw new AdminConflictError(error.message, { cause: error, fields: error.differences });
    }
    if (
      error instanceof ConnectionExistsError ||
      error instanceof ConnectionReadOnlyError ||
      error instanceof ConnectionBusyError
    ) {
      throw new AdminConflictError(error.message, { cause: error });
    }
    throw error;
  }
}

function enableRoute(enabled: boolean): AdminRoute {
  const verb = enabled ? 'enable' : 'disable';
  return defineRoute({
    method: 'POST',
    path: `/connections/{id}/${verb}`,
    operationId: `${verb}Connection`,
    summary: enabled
      ? 'Resume polling a connection from its stored state'
      : 'Stop polling a connection at once; its stream state and snapshots stay',
    tag: 'connections',
    query: EmptySchema,
    body: EmptySchema,
    success: { status: 200, schema: ConnectionViewSchema },
    handle: async ({ id }, deps) => ({
      status: 200,
      body: await withConnections(deps, (c) => setConnectionEnabled(id, enabled, c)),
    }),
  });
}

/** Connection routes: connections are data (one hotel's AccessToken each), added at run time. */
export const CONNECTION_ROUTES: readonly AdminRoute[] = [
  defineRoute({
    method: 'POST',
    path: '/connections',
    operationId: 'addConnection',
    summary:
      'Register a connection; its AccessToken is stored encrypted and never returned. Polled within one interval, no restart. Idempotent: the same add again (a retry) answers 200 with the stored connection, changing nothing',
    tag: 'connections',
    query: EmptySchema,
    body: AddConnectionInputSchema,
    success: {
      status: 201,
      schema: ConnectionViewSchema,
      also: {
        status: 200,
        description:
          'Stored already with the same definition (id, settings and AccessToken): an add retried after one that landed. Nothing changed; the stored connection as it now is',
      },
    },
    handle: async ({ body }, deps) => {
      const { connection, created } = await withConnections(deps, (c) =>
        registerConnection(body, c),
      );
      return { status: created ? 201 : 200, body: connection };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/connections',
    operationId: 'listConnections',
    summary:
      'Connections (the CONNECTOR_* one first, then by id), without tokens, each with its parked streams as getConnection gives them; a page that leaves connections out gives nextCursor',
    tag: 'connections',
    query: ConnectionListQuerySchema,
    body: EmptySchema,
    success: { status: 200, schema: ConnectionListSchema },
    handle: async ({ query }, deps) => ({
      status: 200,
      body: await withConnections(deps, (c) => listConnectionPage(query, deps, c)),
    }),
  }),
  defineReadRoute({
    path: '/connections/{id}',
    operationId: 'getConnection',
    summary:
      'One connection, without its token, with its parked streams (polls refused for authorization: count, total, the first with its reason)',
    tag: 'connections',
    schema: ConnectionDetailSchema,
    read: (id, deps) => withConnections(deps, (c) => getConnectionView(id, c)),
  }),
  enableRoute(false),
  enableRoute(true),
  defineRoute({
    method: 'DELETE',
    path: '/connections/{id}',
    operationId: 'removeConnection',
    summary:
      'Stop polling and delete the connection and its stored token, and its streams’ state and snapshots unless keepState=true (in AWS the streams are hidden at once and their snapshots deleted in the background: stateDeletion)',
    tag: 'connections',
    query: RemoveConnectionQuerySchema,
    body: EmptySchema,
    success: { status: 200, schema: ConnectionRemovedSchema },
    handle: async ({ id, query }, deps) => ({
      status: 200,
      body: await withConnections(deps, (c) =>
        removeConnection(
          id,
          { keepState: query.keepState },
          // A backfill of the streams keeps what they read and published before their state goes.
          {
            ...c,
            beforeStreamsDeleted: (states) => endBackfillParts(states, 'removed', deps),
            ...(deps.stateRemoval ? { stateRemoval: deps.stateRemoval } : {}),
          },
        ),
      ),
    }),
  }),
];
