import { splitStreamId } from '../connections/connection.ts';
import { initialStreamState } from '../polling/poll-stream.ts';
import { removeStream } from '../polling/removed-streams.ts';
import type { AdminDeps } from './admin-deps.ts';
import { backfillProgress, saveResetState, startBackfill } from './backfill.ts';
import { endBackfillParts } from './backfill-ending.ts';
import { BackfillJobCursorSchema, encodeBackfillJobCursor } from './backfill-job-cursor.ts';
import {
  BACKFILL_LIST_PAGE_DEFAULT,
  BACKFILL_LIST_PAGE_MAX,
  BackfillJobListQuerySchema,
  BackfillJobListSchema,
} from './backfill-list-schemas.ts';
import { listedBackfillStreams } from './backfill-streams-listed.ts';
import { AdminNotFoundError, type AdminRoute, defineRoute } from './route.ts';
import {
  BackfillBodySchema,
  BackfillJobViewSchema,
  BackfillProgressQuerySchema,
  EmptySchema,
  StreamListQuerySchema,
  StreamListSchema,
  StreamViewSchema,
} from './schemas.ts';
import { listStreamPage } from './stream-list-page.ts';
import { toStreamView } from './streams-view.ts';

/** The definition and state of a stream; 404 when it is neither configured nor stored. */
async function findStream(id: string, deps: AdminDeps) {
  // Its connection's streams alone: the AWS function reads that connection's item, not all.
  const { connectionId } = splitStreamId(id);
  const definition = (await deps.streams({ connectionId })).find((d) => d.streamId === id);
  const state = await deps.state.getStream(id);
  if (!definition && !state) throw new AdminNotFoundError(`stream ${id} does not exist`);
  return { definition, state };
}

/** The deployment's byte bound of an answer listing streams (AdminDeps.streamListBytes). */
function answerBytes(deps: AdminDeps): { maxBytes?: number } {
  return deps.streamListBytes === undefined ? {} : { maxBytes: deps.streamListBytes };
}

/** Stream routes (list, reset) and backfill jobs. */
export const STREAM_ROUTES: readonly AdminRoute[] = [
  defineRoute({
    method: 'GET',
    path: '/streams',
    operationId: 'listStreams',
    summary:
      'Streams by id with watermark, last poll, lag, errors, parking and window in progress, and the connector budget per connection; a page that leaves streams out gives nextCursor',
    tag: 'streams',
    query: StreamListQuerySchema,
    body: EmptySchema,
    success: { status: 200, schema: StreamListSchema },
    handle: async ({ query }, deps) => ({ status: 200, body: await listStreamPage(query, deps) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/streams/{id}/reset',
    operationId: 'resetStream',
    summary:
      'Forget a stream (state; its snapshots are deleted by its poller before it starts again): its next polls are a first sync per INITIAL_SYNC; unparks it. A stream no longer polled (its connection gone) is deleted (in AWS: hidden at once, its snapshots deleted in the background)',
    tag: 'streams',
    query: EmptySchema,
    body: EmptySchema,
    success: { status: 200, schema: StreamViewSchema },
    handle: async ({ id }, deps) => {
      const { definition, state: before } = await findStream(id, deps);
      // A backfill job of the stream keeps its part's figures and counts the deliveries of the
      // events detected up to here, not after; a stream no longer configured had ended it by its
      // removal.
      const now = deps.clock.now();
      await endBackfillParts([before], definition ? 'superseded' : 'removed', deps, now);
      // A stream whose connection is gone has no definition: its id is all that remains. Its
      // state goes at once or, in AWS, as a tombstone whose snapshots a background purge deletes
      // (a stream of 100,000 took longer than API Gateway's 29 s); a tombstone is noted again.
      if (!definition) {
        if (before) await removeStream(deps.state, before, now, deps.stateRemoval ?? 'now');
        return { status: 200, body: toStreamView(undefined, undefined, now, id) };
      }
      // Its first sync names its `created` events after the reset (with INITIAL_SYNC=emit): an
      // entity deleted before the reset and there again after it is sent again, where the same
      // content's old id would have been taken for a repeat. Its old snapshots are deleted by
      // its poller before that first sync (saveResetState), not in this request.
      const state = await saveResetState(
        deps.state,
        {
          ...initialStreamState(definition, now),
          backfill: { kind: 'first-sync', jobId: `reset_${now}` },
        },
        now,
        { stored: before },
      );
      return { status: 200, body: toStreamView(definition, state, now, id) };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/backfill',
    operationId: 'startBackfill',
    summary:
      'Read streams again from the history start (beside their live polls once synced); with emit, every entity is published as created',
    tag: 'backfill',
    query: EmptySchema,
    body: BackfillBodySchema,
    success: { status: 202, schema: BackfillJobViewSchema },
    handle: async ({ body }, deps) => {
      const job = await startBackfill(
        { entities: body.entities, connections: body.connections, emit: body.emit },
        deps,
      );
      const view = await backfillProgress(job, deps);
      return { status: 202, body: listedBackfillStreams(view, answerBytes(deps)) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/backfill',
    operationId: 'listBackfills',
    summary: `Backfill jobs kept (7 days), newest first, each as it was started (its progress is GET /backfill/{id}'s), ${BACKFILL_LIST_PAGE_MAX} at most an answer; a page that leaves jobs out gives nextCursor`,
    tag: 'backfill',
    query: BackfillJobListQuerySchema,
    body: EmptySchema,
    success: { status: 200, schema: BackfillJobListSchema },
    handle: async ({ query }, deps) => {
      const page = await deps.backfills.list({
        limit: query.limit ?? BACKFILL_LIST_PAGE_DEFAULT,
        ...(query.cursor === undefined
          ? {}
          : { after: BackfillJobCursorSchema.parse(query.cursor) }),
      });
      return {
        status: 200,
        body: {
          jobs: page.jobs.map((job) => ({
            id: job.id,
            startedAt: new Date(job.startedAt).toISOString(),
            emit: job.emit,
            entities: job.entities,
            streamCount: job.streamCount,
            connectionsNamed: job.connectionsNamed === true,
          })),
          ...(page.next ? { nextCursor: encodeBackfillJobCursor(page.next) } : {}),
        },
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/backfill/{id}',
    operationId: 'getBackfill',
    summary:
      'Progress of a backfill job per stream (fraction 0..1, done) with records read, events published, webhooks delivered and the time left; streams=0 for the totals alone',
    tag: 'backfill',
    query: BackfillProgressQuerySchema,
    body: EmptySchema,
    success: { status: 200, schema: BackfillJobViewSchema },
    handle: async ({ id, query }, deps) => {
      const job = await deps.backfills.get(id);
      if (!job) throw new AdminNotFoundError(`backfill job ${id} does not exist`);
      const view = await backfillProgress(job, deps);
      const limit = query.streams === undefined ? {} : { limit: query.streams };
      return { status: 200, body: listedBackfillStreams(view, { ...limit, ...answerBytes(deps) }) };
    },
  }),
];
