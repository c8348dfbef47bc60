import type { z } from 'zod';
import { type ConnectionView, toConnectionView } from '../connections/connection.ts';
import type { ConnectionAdminDeps } from '../connections/connection-admin.ts';
import type { ConnectionDetail } from '../connections/connection-detail.ts';
import { readConnectionsAfter } from '../connections/connection-store.ts';
import type { StateStore } from '../state/state-store.ts';
import type { AdminDeps } from './admin-deps.ts';
import {
  CONNECTION_CURSOR_MAX_CHARS,
  ConnectionCursorSchema,
  type ConnectionListPosition,
  encodeConnectionCursor,
} from './connection-cursor.ts';
import { readParkedStreams } from './connection-list-parked.ts';
import type { ConnectionListQuerySchema, ConnectionListSchema } from './schemas.ts';
import { escapedJsonBytes, firstThatFit } from './stream-page.ts';

/** The deployment's bounds of a page of `GET /connections`. */
export type ConnectionListBounds = Pick<AdminDeps, 'connectionListLimit' | 'connectionListBytes'>;

/** One answer of `GET /connections`. */
export type ConnectionList = z.infer<typeof ConnectionListSchema>;

/** The bounds of a page: the deployment's, and the caller's `limit` held to them. */
function pageLimit(
  query: z.output<typeof ConnectionListQuerySchema>,
  deps: ConnectionListBounds,
): number | undefined {
  const bound = deps.connectionListLimit;
  if (query.limit === undefined) return bound;
  return bound === undefined ? query.limit : Math.min(query.limit, bound);
}

/**
 * The views with their parked streams: those of the first `limit` (the page's connections at
 * most; the one more read only says whether connections follow), each connection's states read
 * alone; without a limit (every connection), every stream state in one listing.
 */
async function withParkedStreams(
  views: readonly ConnectionView[],
  limit: number | undefined,
  state: StateStore,
): Promise<ConnectionDetail[]> {
  const listed = limit === undefined ? views : views.slice(0, limit);
  const parked = await readParkedStreams(
    listed.map((view) => view.id),
    state,
    limit === undefined ? 'all' : 'each',
  );
  return views.map((view) => {
    const own = parked.get(view.id);
    return own === undefined ? view : { ...view, parkedStreams: own };
  });
}

/** Every stored connection after `after`, when the page has no bound (the local `start`). */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

/**
 * One answer of `GET /connections`: the environment's connections first, then the stored ones
 * by id, from where the cursor's page ended, up to `limit` (at most the deployment's bound,
 * which is also the default) and within the deployment's byte bound; with `nextCursor` when
 * connections after them are left out. The store is read for the page's connections and one
 * more, not beyond, so a page costs the same with 100 connections or 10,000. Each connection
 * carries its parked streams: a page of `limit` reads the stream states of its connections, one
 * listing each; a page of every connection, every state in one listing; none with
 * `parkedStreams=false`.
 */
export async function listConnectionPage(
  query: z.output<typeof ConnectionListQuerySchema>,
  deps: ConnectionListBounds,
  connections: ConnectionAdminDeps,
): Promise<ConnectionList> {
  const position: ConnectionListPosition =
    query.cursor === undefined ? { environment: 0 } : ConnectionCursorSchema.parse(query.cursor);
  const limit = pageLimit(query, deps);
  // One more than the page, so a full page knows whether connections follow it.
  const want = limit === undefined ? UNBOUNDED : limit + 1;
  const environment = connections.configured.slice(
    position.environment,
    position.environment + want,
  );
  const stored =
    environment.length < want
      ? await readConnectionsAfter(connections.store, position.after, want - environment.length)
      : [];
  const candidates = [
    ...environment,
    ...stored.map((c) => toConnectionView(c, connections.notPolledBecause?.(c))),
  ];
  const views = query.parkedStreams
    ? await withParkedStreams(candidates, limit, connections.state)
    : candidates;
  const { page, more } = firstThatFit(views, {
    ...(limit === undefined ? {} : { limit }),
    ...(deps.connectionListBytes === undefined ? {} : { maxBytes: deps.connectionListBytes }),
    // The answer around its connections, with the longest cursor it may carry.
    reservedBytes: escapedJsonBytes({
      connections: [],
      nextCursor: 'x'.repeat(CONNECTION_CURSOR_MAX_CHARS),
    }),
  });
  if (!more) return { connections: page };
  const environmentListed = Math.min(page.length, environment.length);
  const lastStored = page.length > environment.length ? page.at(-1)!.id : position.after;
  return {
    connections: page,
    nextCursor: encodeConnectionCursor({
      environment: position.environment + environmentListed,
      ...(lastStored === undefined ? {} : { after: lastStored }),
    }),
  };
}
