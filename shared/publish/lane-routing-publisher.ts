import { eventStreamId } from '../changes/envelope.ts';
import { BridgeError } from '../errors.ts';
import { type BulkLaneLedger, bulkSubjectOf, countByStream, latestMarks } from './bulk-lane.ts';
import { DISPATCH_QUEUE_TARGET } from './dispatch-queue.ts';
import type { PublishableEvent } from './publishable-event.ts';
import {
  type DispatchLane,
  EMPTY_PUBLISH_RESULT,
  type EventPublisher,
  PublishError,
  type PublishOptions,
  type PublishResult,
} from './publisher.ts';

/** Options of {@link LaneRoutingPublisher}. */
export interface LaneRoutingPublisherOptions {
  /** Where live polls' events go (the dispatch queue). */
  live: EventPublisher;
  /** Where bulk work's events go (the bulk dispatch queue, with fewer consumers). */
  bulk: EventPublisher;
  ledger: BulkLaneLedger;
}

/**
 * Sends the events of bulk work (a first sync or backfill that emits) to a dispatch queue of
 * their own, so that in AWS live changes are not delivered behind a backlog of thousands (the
 * local runtime does the same with its two lanes, see DispatchLanes). A subject's events keep
 * their order across the lanes: while a stream has bulk events on their way (the ledger's
 * counts), a live event whose subject's latest bulk event is not handled yet (the ledger's
 * marks) takes the bulk lane too, behind it, and becomes the subject's mark in turn (published
 * with `askedLane: 'live'`, so the dispatcher handles it as live work there); the stream's other
 * live events stay live. Bulk events are counted and marked before they are sent (a crash in
 * between leaves the stream and subject in the bulk lane, never a live event ahead), and those
 * refused for good are counted and noted as handled at once. When the ledger
 * cannot be read, live events of the streams it could not answer for take the bulk lane (late
 * rather than out of order).
 */
export class LaneRoutingPublisher implements EventPublisher {
  constructor(private readonly options: LaneRoutingPublisherOptions) {}

  async publish(
    events: readonly PublishableEvent[],
    options: PublishOptions = {},
  ): Promise<PublishResult> {
    if (events.length === 0) return EMPTY_PUBLISH_RESULT;
    const requested = options.lane ?? 'live';
    const lanes = await this.lanesOf(events, requested);
    const bulk = events.filter((_, index) => lanes[index] === 'bulk');
    const live = events.filter((_, index) => lanes[index] === 'live');
    const { ledger } = this.options;
    if (bulk.length > 0)
      await Promise.all([
        ledger.queued(countByStream(bulk, eventStreamId)),
        ledger.marked(latestMarks(bulk)),
      ]).catch((error: unknown) => {
        throw new PublishError(DISPATCH_QUEUE_TARGET, 'could not count the bulk lane’s events', {
          cause: error,
          retryable: !(error instanceof BridgeError) || error.retryable,
        });
      });
    const [liveResult, bulkResult] = await Promise.all([
      live.length > 0
        ? this.options.live.publish(live, { ...options, lane: 'live' })
        : EMPTY_PUBLISH_RESULT,
      // Live changes the bulk lane carries for their subjects' order stay live work there.
      bulk.length > 0
        ? this.options.bulk.publish(bulk, {
            ...options,
            lane: 'bulk',
            ...(requested === 'live' ? { askedLane: requested } : {}),
          })
        : EMPTY_PUBLISH_RESULT,
    ]);
    const refused = new Set(bulkResult.failures.map((failure) => failure.eventId));
    // Not counted when the table fails: the stream then takes the bulk lane until its counts
    // stall (BULK_LANE_STALL_MS), which delays no event; failing the publish would repeat it.
    if (refused.size > 0)
      await Promise.all([
        ledger.handled(
          countByStream(
            bulk.filter((event) => refused.has(event.id)),
            eventStreamId,
          ),
        ),
        ledger.handledEvents([...refused]),
      ]).catch(() => undefined);
    return {
      published: liveResult.published + bulkResult.published,
      thinned: liveResult.thinned + bulkResult.thinned,
      failures: [...liveResult.failures, ...bulkResult.failures],
    };
  }

  /**
   * Each event's lane: bulk work's events, and live ones whose subject's latest bulk event is
   * not handled yet (or may not be: an event of no subject, counts or marks that cannot be read)
   * in a stream with bulk events on their way.
   */
  private async lanesOf(
    events: readonly PublishableEvent[],
    requested: DispatchLane,
  ): Promise<DispatchLane[]> {
    if (requested === 'bulk') return events.map(() => 'bulk');
    const { ledger } = this.options;
    // Each event's stream, worked out once.
    const streamIds = events.map(eventStreamId);
    const streams = [...new Set(streamIds)].filter((id): id is string => id !== undefined);
    const pending =
      streams.length === 0
        ? new Set<string>()
        : await ledger.pending(streams).catch(() => new Set(streams));
    if (pending.size === 0) return events.map(() => 'live');
    // Per event, its subject when its stream has bulk events on their way (null: none there).
    const subjectsInPending = events.map((event, index) => {
      const streamId = streamIds[index];
      return streamId !== undefined && pending.has(streamId) ? bulkSubjectOf(event) : null;
    });
    const subjects = [
      ...new Set(
        subjectsInPending.filter((subject): subject is string => typeof subject === 'string'),
      ),
    ];
    const waiting =
      subjects.length === 0
        ? new Set<string>()
        : await ledger.waitingSubjects(subjects).catch(() => new Set(subjects));
    return subjectsInPending.map((subject) => {
      if (subject === null) return 'live';
      return subject === undefined || waiting.has(subject) ? 'bulk' : 'live';
    });
  }
}
