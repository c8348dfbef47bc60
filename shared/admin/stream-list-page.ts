import type { z } from 'zod';
import { streamMatches } from '../state/state-store.ts';
import type { AdminDeps } from './admin-deps.ts';
import type { StreamListQuerySchema, StreamListSchema } from './schemas.ts';
import {
  encodeStreamCursor,
  STREAM_CURSOR_MAX_CHARS,
  StreamCursorSchema,
} from './stream-cursor.ts';
import { escapedJsonBytes, firstThatFit, readStatesAfter } from './stream-page.ts';
import { type BudgetView, listStreamViews, type StreamView } from './streams-view.ts';

/** One answer of `GET /streams`. */
export type StreamList = z.infer<typeof StreamListSchema>;

/**
 * The connector budgets of the connections `views` holds streams of (none where the process
 * reports none, as in AWS): a page's budgets grow with its streams, not with the connections.
 */
function budgetsOf(
  budgets: readonly BudgetView[] | undefined,
  views: readonly StreamView[],
): { budgets?: BudgetView[] } {
  if (budgets === undefined) return {};
  const connections = new Set(views.map((view) => view.connectionId));
  return { budgets: budgets.filter((budget) => connections.has(budget.connectionId)) };
}

/**
 * One answer of `GET /streams`: the configured and stored streams (of `connectionId`'s
 * connection, if named) whose ids sort after the cursor's, by id, up to `limit` (at most the
 * deployment's bound, which is also the default) and within the deployment's byte bound; with
 * `nextCursor` when streams after them are left out. The stream states are read up to the page
 * and one more, not beyond, and the configured streams asked for as many (`deps.streams`' page
 * hint); each page carries the connector budgets of its streams' connections.
 */
export async function listStreamPage(
  query: z.output<typeof StreamListQuerySchema>,
  deps: AdminDeps,
): Promise<StreamList> {
  const filter = query.connectionId === undefined ? {} : { connectionId: query.connectionId };
  const position = query.cursor === undefined ? undefined : StreamCursorSchema.parse(query.cursor);
  const bound = deps.streamListLimit;
  const limit =
    query.limit === undefined
      ? bound
      : bound === undefined
        ? query.limit
        : Math.min(query.limit, bound);
  // One more than the page, so a full page knows whether streams follow it.
  const want = limit === undefined ? undefined : limit + 1;
  const read = await readStatesAfter(deps.state, filter, position, want);
  // Without a connection named, the page's part of the streams: the first `want` after the cursor.
  const needed =
    want === undefined || filter.connectionId !== undefined
      ? undefined
      : { want, ...(position === undefined ? {} : { after: position.after }) };
  const definitions = (await deps.streams(filter, needed))
    .filter((d) => streamMatches(d.streamId, filter))
    .filter((d) => position === undefined || d.streamId > position.after)
    .sort((a, b) => (a.streamId < b.streamId ? -1 : a.streamId > b.streamId ? 1 : 0))
    // The page's streams are among the first `want` definitions and the first `want` states.
    .slice(0, want);
  const views = listStreamViews(definitions, read.states, deps.clock.now(), deps.heldStreams?.());
  const budgets = deps.budgets?.();
  const { page, more } = firstThatFit(views, {
    ...(limit === undefined ? {} : { limit }),
    ...(deps.streamListBytes === undefined ? {} : { maxBytes: deps.streamListBytes }),
    // The answer around its streams, with the longest cursor it may carry and the budgets of
    // every connection the page may end up holding streams of (no fewer than it will carry).
    reservedBytes: escapedJsonBytes({
      streams: [],
      ...budgetsOf(budgets, views),
      nextCursor: 'x'.repeat(STREAM_CURSOR_MAX_CHARS),
    }),
  });
  const rest = budgetsOf(budgets, page);
  const last = page.at(-1);
  if (!more || last === undefined) return { streams: page, ...rest };
  const upToLast = read.states.filter((s) => s.streamId <= last.id).length;
  return {
    streams: page,
    ...rest,
    nextCursor: encodeStreamCursor({ after: last.id, read: read.before + upToLast }),
  };
}
