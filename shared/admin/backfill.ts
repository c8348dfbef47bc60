import type { z } from 'zod';
import { hashedId } from '../changes/event-id.ts';
import { mapWithConcurrency } from '../concurrency.ts';
import { splitStreamId } from '../connections/connection.ts';
import { ValidationError } from '../errors.ts';
import type { StreamDefinition } from '../polling/poll-context.ts';
import { initialStreamState } from '../polling/poll-stream.ts';
import {
  type BackfillPass,
  StateConflictError,
  type StateStore,
  type StreamState,
} from '../state/state-store.ts';
import {
  type DeliveryCountRange,
  type DeliveryCounts,
  NO_DELIVERY_COUNTS,
} from '../webhooks/delivery-counter.ts';
import type { AdminDeps } from './admin-deps.ts';
import { endBackfillParts } from './backfill-ending.ts';
import { BackfillEstimates } from './backfill-estimates.ts';
import {
  BACKFILL_ID_PREFIX,
  type BackfillJob,
  type BackfillStreamOutcome,
  withEntries,
} from './backfill-jobs.ts';
import { endedOutcome, partOf } from './backfill-part.ts';
import type { BackfillSources } from './backfill-sources-cache.ts';
import { countBackfillStreams } from './backfill-streams-listed.ts';
import { webhooksPerEvent, withEstimate } from './backfill-view-estimate.ts';
import type { BackfillJobViewSchema, BackfillStreamProgressSchema } from './schemas.ts';

/** Progress of one stream of a backfill. */
export type BackfillStreamProgress = z.infer<typeof BackfillStreamProgressSchema>;
/** A backfill job with its progress. */
export type BackfillJobView = z.infer<typeof BackfillJobViewSchema>;

/** Attempts at replacing a stream state that a poller keeps writing meanwhile. */
const RESET_ATTEMPTS_MAX = 3;

/** Named connections whose streams are read at once (in AWS, a GetItem each). */
const CONNECTION_READS_IN_FLIGHT = 16;

/**
 * The configured streams of the named connections, each connection's read on its own (in AWS,
 * its item alone: one GetItem, not the listing of every stored connection), in the order named,
 * each once; every configured stream (the whole listing) when none are named. The same streams
 * as the whole list's of those connections.
 */
export async function configuredStreamsOf(
  deps: Pick<AdminDeps, 'streams'>,
  connectionIds: readonly string[] | undefined,
): Promise<StreamDefinition[]> {
  if (connectionIds === undefined) return [...(await deps.streams())];
  const named = [...new Set(connectionIds)];
  const read = await mapWithConcurrency(named, CONNECTION_READS_IN_FLIGHT, async (connectionId) =>
    // A `streams` that ignores the filter (the local one) answers every stream: matched here.
    (await deps.streams({ connectionId })).filter((d) => d.connectionId === connectionId),
  );
  const seen = new Set<string>();
  return read.flat().filter((d) => !seen.has(d.streamId) && seen.add(d.streamId));
}

/** What a job's reading of one stream found: its progress, and when its part ended. */
interface StreamReading {
  progress: BackfillStreamProgress;
  /** The outcome to keep on the job: set once the part ended, until it is kept. */
  outcome?: BackfillStreamOutcome;
}

/**
 * Which of a stream's events the job counts the deliveries of: those detected from the job's
 * start until a later backfill or reset took the stream over (`deliveredUntil`, epoch ms), so the
 * events of an earlier sync still queued at the start are not the job's, nor a later one's. A
 * `deliveredUntil` before the start (a delivery counter's value, kept by earlier versions) sets
 * no end. Pure.
 * @example deliveryRange(job, 'main:customer') // { streamId: 'main:customer', fromMs: job.startedAt }
 */
export function deliveryRange(job: BackfillJob, streamId: string): DeliveryCountRange {
  const until = job.deliveredUntil?.[streamId];
  return {
    streamId,
    fromMs: job.startedAt,
    ...(until !== undefined && until >= job.startedAt ? { untilMs: until } : {}),
  };
}

/**
 * Progress of one stream's part of a job, from the outcome kept on the job once the part ended,
 * or else from the stream's backfill state (see StreamBackfillSchema): a pass's own watermark
 * over `[history start, its end)` and its own counters; a first sync's watermark and counters.
 * A stream no longer configured (its connection removed or disabled) or whose backfill state
 * belongs to another job (a later backfill or reset took over) has ended (`endedBy`). The
 * webhook figures are the dispatcher's counts of the stream's events in {@link deliveryRange}
 * (`counts`): delivered, dead-lettered, and made but neither yet (`webhooksLeft`); events the
 * stream published since the start that the dispatcher has not fanned out yet are
 * `eventsQueued` (0 once the part ended early: its state no longer tells). `now` dates an end
 * first seen. Pure.
 * @example readStream(job, 'main:customer', 'customer', state, counts, true, now).progress.fraction // 0.42
 */
export function readStream(
  job: BackfillJob,
  streamId: string,
  entityType: string,
  state: StreamState | undefined,
  counts: DeliveryCounts,
  configured: boolean,
  now: number,
): StreamReading {
  const part = partOf(job, state);
  const outcome = endedOutcome(job, streamId, state, configured ? null : 'removed', now);
  const ended = job.outcomes?.[streamId] ?? outcome;
  const published = ended?.endedBy ? undefined : part?.streamEventsPublished;
  return {
    progress: {
      streamId,
      entityType,
      // The range's share until backfillProgress puts the estimate's in `fraction`.
      fraction: ended ? 1 : (part?.fraction ?? 0),
      rangeFraction: ended ? 1 : (part?.fraction ?? 0),
      recordsAtFirstSync: part?.recordsAtFirstSync ?? null,
      done: ended !== undefined,
      watermark: state?.watermark ?? null,
      parked: state?.parked ?? false,
      lastError: state?.lastError ?? null,
      endedBy: ended?.endedBy ?? null,
      recordsRead: ended?.recordsRead ?? part?.recordsRead ?? 0,
      eventsPublished: ended?.eventsPublished ?? part?.eventsPublished ?? 0,
      webhooksDelivered: counts.delivered,
      webhooksDeadLettered: counts.dead,
      webhooksLeft: Math.max(0, counts.created - counts.delivered - counts.dead),
      eventsQueued: published === undefined ? 0 : Math.max(0, published - counts.events),
    },
    ...(outcome ? { outcome } : {}),
  };
}

/**
 * What the job's progress is read from (see {@link BackfillSources}): the stream states (one
 * strongly consistent read each), the delivery counts of the events in each stream's
 * {@link deliveryRange} (a Query per stream) and the configured streams.
 */
export async function readBackfillSources(
  job: BackfillJob,
  deps: Pick<AdminDeps, 'state' | 'deliveryCounter' | 'streams' | 'clock'>,
): Promise<BackfillSources> {
  const readAt = deps.clock.now();
  const [states, delivered, configured] = await Promise.all([
    Promise.all(job.streamIds.map((streamId) => deps.state.getStream(streamId))),
    deps.deliveryCounter.read(job.streamIds.map((streamId) => deliveryRange(job, streamId))),
    // A job of named connections is about theirs alone; of every connection, the whole listing.
    configuredStreamsOf(
      deps,
      job.connectionsNamed
        ? job.streamIds.map((streamId) => splitStreamId(streamId).connectionId)
        : undefined,
    ),
  ]);
  return {
    states,
    delivered,
    configuredIds: new Set(configured.map((d) => d.streamId)),
    readAt,
  };
}

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
 * The configured streams of the chosen connections and entity types (each list: all when
 * absent); throws ValidationError naming `connections[i]` or `entities[i]` for one that has no
 * configured stream. Pure.
 */
export function chooseStreams(
  streams: readonly StreamDefinition[],
  entities: readonly string[] | undefined,
  connections?: readonly string[] | undefined,
): StreamDefinition[] {
  connections?.forEach((connectionId, index) => {
    if (!streams.some((s) => s.connectionId === connectionId)) {
      throw new ValidationError('backfill', [
        { path: `connections[${index}]`, message: `${connectionId} is no enabled connection` },
      ]);
    }
  });
  const ofConnections = connections
    ? streams.filter((s) => connections.includes(s.connectionId))
    : [...streams];
  if (entities === undefined) return ofConnections;
  entities.forEach((entityType, index) => {
    if (!ofConnections.some((s) => s.spec.entityType === entityType)) {
      throw new ValidationError('backfill', [
        {
          path: `entities[${index}]`,
          message: connections
            ? `${entityType} is not polled by ${connections.join(', ')} (its --entities, else POLL_ENTITIES)`
            : `${entityType} is not polled here (POLL_ENTITIES, or a connection's --entities)`,
        },
      ]);
    }
  });
  return ofConnections.filter((s) => entities.includes(s.spec.entityType));
}

/**
 * Starts one stream's part of a backfill. A stream that completed its first sync keeps its
 * state and snapshots and gets a pass (see BackfillPassSchema) from the history start to its
 * watermark (where its live polls had read), read beside its live polls, which go on: no live
 * change is lost or waits.
 * Any other stream is reset (a fresh state whose poller deletes the old snapshots, see
 * StreamState.resetAt) and its first sync is the backfill, in the job's mode (`emit`: `created` events; `baseline`: stored silently) whatever
 * INITIAL_SYNC says. A poller saving meanwhile makes the conditional save lose; the start is
 * then repeated.
 */
export async function startStreamBackfill(
  store: StateStore,
  definition: StreamDefinition,
  job: Pick<BackfillJob, 'id' | 'emit' | 'startedAt'>,
  /** The stream's state as the caller just read it, for the first attempt (`undefined`: none). */
  known?: { stored: StreamState | undefined },
): Promise<void> {
  const now = job.startedAt;
  for (let attempt = 1; ; attempt++) {
    const stored =
      attempt === 1 && known ? known.stored : await store.getStream(definition.streamId);
    try {
      if (stored?.initialSyncDone && stored.watermark !== null) {
        const pass: BackfillPass = {
          kind: 'pass',
          jobId: job.id,
          emit: job.emit,
          startedAt: now,
          // Up to where its live polls had read: what changed since is theirs to publish (an
          // entity changed just before the start would otherwise also be read by the pass, in
          // its new form, after the live poll's `created` and `updated`).
          endUtc: stored.watermark,
          watermark: null,
          window: null,
          recordsRead: 0,
          eventsPublished: 0,
          liveEventsAtStart: stored.eventsPublished ?? 0,
          doneAt: null,
        };
        await store.saveStream({ ...stored, backfill: pass, nextDueAt: now }, stored.version);
        return;
      }
      await store.saveStream(
        {
          ...initialStreamState(definition, now),
          initialSync: job.emit ? 'emit' : 'baseline',
          backfill: { kind: 'first-sync', jobId: job.id },
          resetAt: now,
        },
        stored?.version ?? 0,
      );
      return;
    } catch (error) {
      if (!(error instanceof StateConflictError) || attempt >= RESET_ATTEMPTS_MAX) throw error;
    }
  }
}

/**
 * Replaces a stream's state with `fresh` (a reset's), marked `resetAt: now`: its snapshots of
 * before are deleted by its poller, a bounded number per poll, before its first sync begins
 * (StreamState.resetAt), not here; so the request's work does not grow with the stream (a
 * stream of 100,000 snapshots took longer than API Gateway's 29 s to delete). A poller saving
 * meanwhile makes the conditional save lose; it is then repeated. Returns the state saved.
 */
export async function saveResetState(
  store: StateStore,
  fresh: StreamState,
  now: number,
  /** The stream's state as the caller just read it, for the first attempt (`undefined`: none). */
  known?: { stored: StreamState | undefined },
): Promise<StreamState> {
  for (let attempt = 1; ; attempt++) {
    const stored = attempt === 1 && known ? known.stored : await store.getStream(fresh.streamId);
    try {
      return await store.saveStream({ ...fresh, resetAt: now }, stored?.version ?? 0);
    } catch (error) {
      if (!(error instanceof StateConflictError) || attempt >= RESET_ATTEMPTS_MAX) throw error;
    }
  }
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
