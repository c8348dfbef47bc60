import { splitStreamId } from '../connections/connection.ts';
import type { StreamState } from '../state/state-store.ts';
import type { DeliveryCountRange, DeliveryCounts } from '../webhooks/delivery-counter.ts';
import type { AdminDeps } from './admin-deps.ts';
import type { BackfillJob, BackfillStreamOutcome } from './backfill-jobs.ts';
import { endedOutcome, partOf } from './backfill-part.ts';
import type { BackfillSources } from './backfill-sources-cache.ts';
import { configuredStreamsOf } from './backfill-streams-chosen.ts';
import type { BackfillStreamProgress } from './backfill-view.ts';

/** What a job's reading of one stream found: its progress, and when its part ended. */
export interface StreamReading {
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
