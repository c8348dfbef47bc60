import { hashedId } from '../changes/event-id.ts';
import { splitStreamId } from '../connections/connection.ts';
import { ValidationError } from '../errors.ts';
import { NO_DELIVERY_COUNTS } from '../webhooks/delivery-counter.ts';
import type { AdminDeps } from './admin-deps.ts';
import { endBackfillParts } from './backfill-ending.ts';
import { BackfillEstimates } from './backfill-estimates.ts';
import {
  BACKFILL_ID_PREFIX,
  type BackfillJob,
  type BackfillStreamOutcome,
  withEntries,
} from './backfill-jobs.ts';
import { readBackfillSources, readStream } from './backfill-stream-reading.ts';
import { startStreamBackfill } from './backfill-stream-start.ts';
import { chooseStreams, configuredStreamsOf } from './backfill-streams-chosen.ts';
import { countBackfillStreams } from './backfill-streams-listed.ts';
import type { BackfillJobView, BackfillStreamProgress } from './backfill-view.ts';
import { webhooksPerEvent, withEstimate } from './backfill-view-estimate.ts';

export { deliveryRange, readBackfillSources, readStream } from './backfill-stream-reading.ts';
export { saveResetState, startStreamBackfill } from './backfill-stream-start.ts';
export { chooseStreams, configuredStreamsOf } from './backfill-streams-chosen.ts';
export type { BackfillJobView, BackfillStreamProgress } from './backfill-view.ts';

/**
 * The job with each stream's progress, from its sources ({@link readBackfillSources}; with
 * `deps.backfillSources`, those read at most its refresh interval ago, see
 * BackfillSourcesCache). The figures are sums over the streams. Streams first read as ended
 * have their outcome kept on the job (one write, adding only outcomes not kept meanwhile; see
 * BackfillJobStore.keep).
 */
export async function backfillProgress(
  job: BackfillJob,
  deps: Pick<
    AdminDeps,
    | 'state'
    | 'deliveryCounter'
    | 'clock'
    | 'streams'
    | 'backfills'
    | 'backfillSources'
    | 'backfillEstimates'
  >,
): Promise<BackfillJobView> {
  const now = deps.clock.now();
  const read = () => readBackfillSources(job, deps);
  const { states, delivered, configuredIds, readAt } = await (deps.backfillSources?.sources(
    job,
    now,
    read,
  ) ?? read());
  const readAll = (of: BackfillJob) =>
    job.streamIds.map((streamId, index) => {
      const state = states[index];
      const entityType = state?.entityType ?? splitStreamId(streamId).entityType;
      return readStream(
        of,
        streamId,
        entityType,
        state,
        delivered.get(streamId) ?? NO_DELIVERY_COUNTS,
        configuredIds.has(streamId),
        now,
      );
    });
  let readings = readAll(job);
  const found: Record<string, BackfillStreamOutcome> = {};
  for (const [index, { outcome }] of readings.entries()) {
    if (outcome) found[job.streamIds[index] as string] = outcome;
  }
  let kept = job;
  if (Object.keys(found).length > 0) {
    // Only the outcomes the stored job lacks are added, and the view is read against the job as
    // stored: one kept since `job` was read stands (a connection's removal or a takeover keeps
    // its streams' figures just before it deletes or replaces their states, which then read
    // as ended with nothing read).
    kept =
      (await deps.backfills.keep(job.id, { outcomes: found })) ??
      withEntries(job, { outcomes: found });
    readings = readAll(kept);
  }
  const outcomes = kept.outcomes ?? {};
  const streams = readings.map((r) => r.progress);
  const done = streams.every((s) => s.done);
  const fraction = streams.length
    ? streams.reduce((sum, s) => sum + s.fraction, 0) / streams.length
    : 1;
  const finishedAtMs = done
    ? Math.max(job.startedAt, ...Object.values(outcomes).map((o) => o.doneAt))
    : undefined;
  const elapsedMs = Math.max(0, (finishedAtMs ?? now) - job.startedAt);
  const sum = (pick: (s: BackfillStreamProgress) => number) =>
    streams.reduce((total, s) => total + pick(s), 0);
  const view: BackfillJobView = {
    id: job.id,
    startedAt: new Date(job.startedAt).toISOString(),
    emit: job.emit,
    fraction,
    done,
    streams,
    recordsRead: sum((s) => s.recordsRead),
    eventsPublished: sum((s) => s.eventsPublished),
    webhooksDelivered: sum((s) => s.webhooksDelivered),
    webhooksDeadLettered: sum((s) => s.webhooksDeadLettered),
    webhooksLeft: sum((s) => s.webhooksLeft),
    eventsQueued: sum((s) => s.eventsQueued),
    deliveryDone: done && streams.every((s) => s.webhooksLeft === 0 && s.eventsQueued === 0),
    streamCounts: countBackfillStreams(streams),
    streamsLeftOut: 0,
    elapsedSeconds: Math.floor(elapsedMs / 1000),
    finishedAt: finishedAtMs === undefined ? null : new Date(finishedAtMs).toISOString(),
    etaSeconds: null,
  };
  return withEstimate(
    view,
    readAt,
    webhooksPerEvent(job.streamIds.map((id) => delivered.get(id) ?? NO_DELIVERY_COUNTS)),
    deps.backfillEstimates ?? new BackfillEstimates(),
  );
}

/**
 * Starts a backfill: ends the parts of earlier
 * jobs it takes over (each keeps its figures, see endBackfillParts), starts each stream's part
 * (see {@link startStreamBackfill}) and stores a job. The ordinary pollers then do the work,
 * locally and in AWS alike; progress is read back with {@link backfillProgress}.
 * @throws ValidationError naming `entities[i]` or `connections[i]` for one with no stream.
 */
export async function startBackfill(
  input: {
    entities?: readonly string[] | undefined;
    connections?: readonly string[] | undefined;
    emit: boolean;
  },
  deps: AdminDeps,
): Promise<BackfillJob> {
  const chosen = chooseStreams(
    await configuredStreamsOf(deps, input.connections),
    input.entities,
    input.connections,
  );
  if (chosen.length === 0) {
    throw new ValidationError('backfill', [
      { path: 'entities', message: 'no stream is configured' },
    ]);
  }
  const now = deps.clock.now();
  const streamIds = chosen.map((d) => d.streamId);
  const id = hashedId(BACKFILL_ID_PREFIX, ['backfill/v1', String(now), String(deps.random())]);
  const job: BackfillJob = {
    id,
    startedAt: now,
    emit: input.emit,
    entities: [...new Set(chosen.map((d) => d.spec.entityType))],
    streamIds,
    historyStartMs: deps.windows.historyStartMs,
    doneAtMs: now - deps.windows.settleLagMs - deps.windows.minWindowMs,
    ...(input.connections ? { connectionsNamed: true } : {}),
  };
  // Stored first: a stream's part names the job, and a job is never missing for one.
  await deps.backfills.put(job);
  const states = await Promise.all(streamIds.map((streamId) => deps.state.getStream(streamId)));
  // The earlier jobs count the deliveries of events detected before this one started.
  await endBackfillParts(states, 'superseded', deps, now);
  await Promise.all(
    chosen.map((d, index) => startStreamBackfill(deps.state, d, job, { stored: states[index] })),
  );
  return job;
}
