import type { z } from 'zod';
import { hashEventId } from '../changes/event-id.ts';
import { ValidationError } from '../errors.ts';
import type { StreamDefinition } from '../polling/poll-context.ts';
import { initialStreamState } from '../polling/poll-stream.ts';
import { StateConflictError, type StateStore, type StreamState } from '../state/state-store.ts';
import type { AdminDeps } from './admin-deps.ts';
import type { BackfillJob } from './backfill-jobs.ts';
import type { BackfillJobViewSchema, BackfillStreamProgressSchema } from './schemas.ts';

/** Progress of one stream of a backfill. */
export type BackfillStreamProgress = z.infer<typeof BackfillStreamProgressSchema>;
/** A backfill job with its progress. */
export type BackfillJobView = z.infer<typeof BackfillJobViewSchema>;

/** Attempts at replacing a stream state that a poller keeps writing meanwhile. */
const RESET_ATTEMPTS_MAX = 3;

/**
 * Progress of one stream: (watermark − historyStart) / (jobStart − historyStart), clamped to
 * 0..1; done once the watermark reaches the job start minus the settle lag (the pollers
 * never place a window end later than now − settle lag). No watermark yet: 0. Records read
 * and events published are the stream state's counters (the backfill's reset restarted
 * them), as they stood when its first sync completed once it did (`firstSync`); webhooks delivered is the stream's delivery counter now (`delivered`) less its
 * value when the job started. Pure.
 * @example streamProgress(job, 'main:customer', 'customer', state, 1200).fraction // 0.42
 */
export function streamProgress(
  job: BackfillJob,
  streamId: string,
  entityType: string,
  state: StreamState | undefined,
  delivered = 0,
): BackfillStreamProgress {
  const watermarkMs = state?.watermark ? Date.parse(state.watermark) : Number.NaN;
  // Once the first sync is done, its own figures: the stream goes on reading live changes.
  const counters = state?.firstSync ?? state;
  const done = Number.isFinite(watermarkMs) && watermarkMs >= job.doneAtMs;
  const span = job.startedAt - job.historyStartMs;
  let fraction = 0;
  if (done) fraction = 1;
  else if (Number.isFinite(watermarkMs)) {
    fraction = span > 0 ? Math.min(1, Math.max(0, (watermarkMs - job.historyStartMs) / span)) : 0;
  }
  return {
    streamId,
    entityType,
    fraction,
    done,
    watermark: state?.watermark ?? null,
    parked: state?.parked ?? false,
    lastError: state?.lastError ?? null,
    recordsRead: counters?.recordsRead ?? 0,
    eventsPublished: counters?.eventsPublished ?? 0,
    // A counter read before the job's own start value (eventually consistent) is no progress yet.
    webhooksDelivered: Math.max(0, delivered - (job.deliveredAtStart?.[streamId] ?? 0)),
  };
}

/**
 * Seconds left at the pace so far: the elapsed time scaled by the fraction still to go,
 * rounded up. 0 once done; null while nothing has moved (no fraction, no time), when any
 * figure would be a guess. Pure.
 * @example estimateSecondsLeft(0.25, 30_000) // 90
 */
export function estimateSecondsLeft(fraction: number, elapsedMs: number): number | null {
  if (fraction >= 1) return 0;
  if (!(fraction > 0) || !(elapsedMs > 0)) return null;
  return Math.ceil((elapsedMs * (1 - fraction)) / fraction / 1000);
}

/**
 * The job with each stream's progress: the stream states (one strongly consistent read each)
 * and the delivery counters (one batched read). The figures are sums over the streams.
 */
export async function backfillProgress(
  job: BackfillJob,
  deps: Pick<AdminDeps, 'state' | 'deliveryCounter' | 'clock'>,
): Promise<BackfillJobView> {
  const [states, delivered] = await Promise.all([
    Promise.all(job.streamIds.map((streamId) => deps.state.getStream(streamId))),
    deps.deliveryCounter.read(job.streamIds),
  ]);
  const streams = job.streamIds.map((streamId, index) => {
    const state = states[index];
    const entityType = state?.entityType ?? entityTypeOf(streamId);
    return streamProgress(job, streamId, entityType, state, delivered.get(streamId) ?? 0);
  });
  const done = streams.every((s) => s.done);
  const fraction = streams.length
    ? streams.reduce((sum, s) => sum + s.fraction, 0) / streams.length
    : 1;
  const finishedAtMs = done ? lastFirstSyncEnd(states) : undefined;
  const elapsedMs = Math.max(0, (finishedAtMs ?? deps.clock.now()) - job.startedAt);
  const sum = (pick: (s: BackfillStreamProgress) => number) =>
    streams.reduce((total, s) => total + pick(s), 0);
  return {
    id: job.id,
    startedAt: new Date(job.startedAt).toISOString(),
    emit: job.emit,
    fraction,
    done,
    streams,
    recordsRead: sum((s) => s.recordsRead),
    eventsPublished: sum((s) => s.eventsPublished),
    webhooksDelivered: sum((s) => s.webhooksDelivered),
    elapsedSeconds: Math.floor(elapsedMs / 1000),
    finishedAt: finishedAtMs === undefined ? null : new Date(finishedAtMs).toISOString(),
    etaSeconds: estimateSecondsLeft(done ? 1 : fraction, elapsedMs),
  };
}

/** When the last of the streams' first syncs completed; undefined unless every one recorded it. */
function lastFirstSyncEnd(states: readonly (StreamState | undefined)[]): number | undefined {
  let last = Number.NEGATIVE_INFINITY;
  for (const state of states) {
    if (state?.firstSync === undefined) return undefined;
    last = Math.max(last, state.firstSync.doneAt);
  }
  return Number.isFinite(last) ? last : undefined;
}

function entityTypeOf(streamId: string): string {
  return streamId.slice(streamId.lastIndexOf(':') + 1);
}

/** The configured streams of the chosen entity types; throws ValidationError naming `entities[i]`. */
export function chooseStreams(
  streams: readonly StreamDefinition[],
  entities: readonly string[] | undefined,
): StreamDefinition[] {
  if (entities === undefined) return [...streams];
  entities.forEach((entityType, index) => {
    if (!streams.some((s) => s.spec.entityType === entityType)) {
      throw new ValidationError('backfill', [
        { path: `entities[${index}]`, message: `${entityType} is not polled here (POLL_ENTITIES)` },
      ]);
    }
  });
  return streams.filter((s) => entities.includes(s.spec.entityType));
}

/**
 * Resets one stream for a first sync: drops its state, snapshots and lease, then stores the
 * initial state with its own first-sync mode (`emit`: the first sync publishes `created`
 * events; `baseline`: it stores silently), whatever INITIAL_SYNC says. A poller saving meanwhile makes the conditional save
 * lose; the reset is then repeated.
 */
export async function resetStreamForBackfill(
  store: StateStore,
  definition: StreamDefinition,
  now: number,
  emit: boolean,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await store.deleteStream(definition.streamId);
    try {
      await store.saveStream(
        { ...initialStreamState(definition, now), initialSync: emit ? 'emit' : 'baseline' },
        0,
      );
      return;
    } catch (error) {
      if (!(error instanceof StateConflictError) || attempt >= RESET_ATTEMPTS_MAX) throw error;
    }
  }
}

/**
 * Starts a backfill: notes each chosen stream's delivery counter, resets the streams (see
 * {@link resetStreamForBackfill}) and stores a job. The ordinary pollers then do the work,
 * locally and in AWS alike; progress is read back with {@link backfillProgress}.
 * @throws ValidationError naming `entities[i]` for an entity type that is not polled.
 */
export async function startBackfill(
  input: { entities?: readonly string[] | undefined; emit: boolean },
  deps: AdminDeps,
): Promise<BackfillJob> {
  const chosen = chooseStreams(await deps.streams(), input.entities);
  if (chosen.length === 0) {
    throw new ValidationError('backfill', [
      { path: 'entities', message: 'no stream is configured' },
    ]);
  }
  const now = deps.clock.now();
  const streamIds = chosen.map((d) => d.streamId);
  // Read before the reset, so no delivery of the backfill's own events is left out.
  const deliveredAtStart = Object.fromEntries(await deps.deliveryCounter.read(streamIds));
  await Promise.all(chosen.map((d) => resetStreamForBackfill(deps.state, d, now, input.emit)));
  const job: BackfillJob = {
    id: `bf_${hashEventId(['backfill/v1', String(now), String(deps.random())]).slice('evt_'.length)}`,
    startedAt: now,
    emit: input.emit,
    entities: [...new Set(chosen.map((d) => d.spec.entityType))],
    streamIds,
    historyStartMs: deps.windows.historyStartMs,
    doneAtMs: now - deps.windows.settleLagMs - deps.windows.minWindowMs,
    deliveredAtStart,
  };
  await deps.backfills.put(job);
  return job;
}
