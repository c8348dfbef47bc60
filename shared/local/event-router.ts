import { randomUUID } from 'node:crypto';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { type Clock, type RandomSource, systemClock, systemRandom } from '../clock.ts';
import { deliverInBatches } from '../publish/batch-delivery.ts';
import { type PreparedEntry, prepareWithinLimit } from '../publish/batch-packing.ts';
import { ASKED_LIVE_BYTES, askedLiveEnvelope } from '../publish/dispatch-queue.ts';
import {
  DEFAULT_EVENT_SOURCE,
  PUT_EVENTS_MAX_BYTES,
  sizedEventBridgeEntry,
} from '../publish/event-bridge-entry.ts';
import { type DeliveredEnvelope, toEventBridgeEnvelope } from '../publish/event-bridge-envelope.ts';
import { NO_PUBLISH_METRICS, type PublishMetrics } from '../publish/publish-metrics.ts';
import { entityKeyOf, type PublishableEvent } from '../publish/publishable-event.ts';
import type {
  DispatchLane,
  EventPublisher,
  PublishFailure,
  PublishOptions,
  PublishResult,
} from '../publish/publisher.ts';
import { DEFAULT_RETRY_OPTIONS, type RetryOptions } from '../publish/retry-backoff.ts';
import { type EventPattern, matchesEventPattern } from '../publish/routing-rule.ts';
import {
  SQS_BATCH_MAX_ENTRIES,
  SQS_MAX_BYTES,
  type SqsEntry,
  sendSqsBatch,
  sqsFifoId,
} from '../publish/sqs-publisher.ts';
import { withMembers } from '../with-members.ts';
import { type DispatchLanes, type LaneKey, laneGroup, laneKey } from './dispatch-lanes.ts';
import { EMULATOR_ACCOUNT_ID, EMULATOR_REGION } from './emulator-ids.ts';

/** One rule with an SQS target, as the infra defines it on the bus. */
export interface EventRoute {
  /** The rule's name (in failure messages). */
  name: string;
  pattern: EventPattern;
  queueUrl: string;
  /**
   * Where bulk work's events wait (see DispatchLanes): a lane of their own, so live changes
   * are not queued behind them. Without it every event takes `queueUrl`.
   */
  bulkQueueUrl?: string;
}

/** The two dispatch lanes' state, and a look at whether the bulk lane is empty. */
export interface RouterLanes {
  state: DispatchLanes;
  /** True when the bulk lane holds nothing, visible or in flight. */
  bulkEmpty: () => Promise<boolean>;
  /**
   * Told of each live event just queued in the bulk lane behind its subject's bulk events, to
   * move them ahead of the backlog (see SubjectExpediter); without it they wait their turn there.
   */
  expedite?: (key: LaneKey) => void;
}

type RoutedEnvelope = DeliveredEnvelope & { thinned: boolean };

/**
 * Events routed in one go: a longer publish (a page's thousand `created` events) is routed this
 * many at a time, each part queued before the next part's entries and envelopes are made. The
 * texts of a whole page's envelopes, alive together until the last was queued, outlived the
 * young generation and were copied into the old one (~4 KB an event); in parts they die young.
 * With the local store's puts as bytes (dynalite-item-puts.ts), an emitting backfill of 100,000
 * customers through `change-bridge start` read ~6 % faster with ~7 % less of the bridge's CPU a
 * record (docs/benchmarks.md, checks in the thirty-fifth stop).
 */
export const ROUTED_EVENTS_AT_ONCE = 100;

/**
 * A live change's envelope as the bulk lane carries it behind its subject's bulk events: marked
 * (ASKED_LIVE_MEMBER, first) so the dispatcher handles it as live work there. Its event is the
 * same. Pure.
 */
function askedLive(item: RoutedEnvelope): RoutedEnvelope {
  return {
    ...item,
    body: askedLiveEnvelope(item.body),
    bodyBytes: item.bodyBytes + ASKED_LIVE_BYTES,
  };
}

/** Options of {@link LocalEventRouter}. */
export interface LocalEventRouterOptions {
  client: SQSClient;
  routes: readonly EventRoute[];
  /** EventBridge `Source` of the entries (default `change-bridge`). */
  source?: string;
  eventBusName?: string;
  account?: string;
  region?: string;
  /** Envelope ids; EventBridge uses random UUIDs (default `randomUUID`). */
  newId?: () => string;
  clock?: Clock;
  random?: RandomSource;
  retry?: Partial<RetryOptions>;
  metrics?: PublishMetrics;
  /** The lanes of routes with a `bulkQueueUrl`. */
  lanes?: RouterLanes;
}

/**
 * The local stand-in for the EventBridge bus and its rules: builds the same PutEvents
 * entries as {@link EventBridgePublisher} (thin when over 256 KB), wraps each in the
 * envelope EventBridge delivers to an SQS target, and sends it to the queue of every route
 * whose pattern matches (the real SQS client, against the emulator). An event no route
 * matches is accepted and dropped, as EventBridge does. A FIFO queue gets
 * `MessageGroupId` = the entity key and `MessageDeduplicationId` = the event id (each through
 * sqsFifoId, as the SQS publisher sends them).
 * @example new LocalEventRouter({ client, routes: [{ name: 'dispatch', pattern: dispatchEventPattern(), queueUrl }] })
 */
export class LocalEventRouter implements EventPublisher {
  private readonly options: LocalEventRouterOptions;
  private readonly entryOptions: { source: string; eventBusName: string };

  constructor(options: LocalEventRouterOptions) {
    this.options = options;
    this.entryOptions = {
      source: options.source ?? DEFAULT_EVENT_SOURCE,
      eventBusName: options.eventBusName ?? 'default',
    };
  }

  /**
   * See {@link EventPublisher.publish}; `options.lane` picks a route's lane (see EventRoute).
   * Events are routed {@link ROUTED_EVENTS_AT_ONCE} at a time, in order, each part queued
   * before the next is made; the result counts them all. A part that throws leaves the parts
   * before it queued, as a failed request of ten leaves the requests sent before it.
   */
  async publish(
    events: readonly PublishableEvent[],
    options: PublishOptions = {},
  ): Promise<PublishResult> {
    if (events.length <= ROUTED_EVENTS_AT_ONCE) return this.publishPart(events, options);
    let published = 0;
    let thinned = 0;
    const failures: PublishFailure[] = [];
    for (let from = 0; from < events.length; from += ROUTED_EVENTS_AT_ONCE) {
      const part = await this.publishPart(
        events.slice(from, from + ROUTED_EVENTS_AT_ONCE),
        options,
      );
      published += part.published;
      thinned += part.thinned;
      failures.push(...part.failures);
    }
    return { published, thinned, failures };
  }

  /** {@link publish} of at most {@link ROUTED_EVENTS_AT_ONCE} events. */
  private async publishPart(
    events: readonly PublishableEvent[],
    options: PublishOptions,
  ): Promise<PublishResult> {
    await this.lookForDrainedLane();
    const metrics = this.options.metrics ?? NO_PUBLISH_METRICS;
    const clock = this.options.clock ?? systemClock;
    const failures: PublishFailure[] = [];
    const envelopes: RoutedEnvelope[] = [];
    for (const event of events) {
      const item = prepareWithinLimit(event, PUT_EVENTS_MAX_BYTES, 'local-router', (e) => {
        const sized = sizedEventBridgeEntry(e, this.entryOptions);
        return { entry: sized, bytes: sized.bytes };
      });
      if (!('entry' in item)) {
        failures.push(item);
        metrics.recordFailed('local-router', item.eventType, 1, item.code);
        continue;
      }
      const delivered = toEventBridgeEnvelope(
        item.entry.entry,
        item.event,
        {
          id: (this.options.newId ?? randomUUID)(),
          account: this.options.account ?? EMULATOR_ACCOUNT_ID,
          region: this.options.region ?? EMULATOR_REGION,
          receivedAt: new Date(clock.now()),
        },
        item.entry.detailBytes,
      );
      envelopes.push(withMembers(delivered, { thinned: item.thinned }));
    }
    for (const route of this.options.routes) {
      const matching = envelopes.filter((item) =>
        matchesEventPattern(route.pattern, item.envelope),
      );
      failures.push(
        ...(await this.deliverByLane(route, matching, options.lane ?? 'live', metrics)),
      );
    }
    const failedIds = new Set(failures.map((failure) => failure.eventId));
    const accepted = envelopes.filter((item) => !failedIds.has(item.envelope.detail.id));
    return {
      published: accepted.length,
      thinned: accepted.filter((item) => item.thinned).length,
      failures,
    };
  }

  /** While the lanes are unsure, one look at the bulk lane: empty, they are sure again. */
  private async lookForDrainedLane(): Promise<void> {
    const lanes = this.options.lanes;
    const token = lanes?.state.drainCheck();
    if (lanes === undefined || token === undefined) return;
    if (await lanes.bulkEmpty()) lanes.state.drained(token);
  }

  /** Sends each envelope to its lane's queue (the route's only queue when it has one lane). */
  private async deliverByLane(
    route: EventRoute,
    matching: readonly RoutedEnvelope[],
    requested: DispatchLane,
    metrics: PublishMetrics,
  ): Promise<PublishFailure[]> {
    const lanes = this.options.lanes?.state;
    if (route.bulkQueueUrl === undefined || lanes === undefined)
      return this.deliver(route, route.queueUrl, matching, metrics);
    const live: RoutedEnvelope[] = [];
    const bulk: RoutedEnvelope[] = [];
    const bulkKeys: LaneKey[] = [];
    for (const item of matching) {
      const key = laneKey(item.envelope.detail);
      if (lanes.laneOf(key, requested) === 'live') live.push(item);
      else {
        bulk.push(requested === 'live' ? askedLive(item) : item);
        bulkKeys.push(key);
      }
    }
    const failures = await this.deliver(route, route.queueUrl, live, metrics);
    if (bulk.length === 0) return failures;
    const keyOf = new Map(bulk.map((item, index) => [item.envelope.detail.id, bulkKeys[index]!]));
    const send = lanes.sending(bulkKeys);
    let refused: PublishFailure[];
    try {
      refused = await this.deliver(route, route.bulkQueueUrl, bulk, metrics, keyOf);
    } catch (error) {
      lanes.sent(send, 'failed');
      throw error;
    }
    lanes.sent(send, { refused: refused.flatMap((failure) => keyOf.get(failure.eventId) ?? []) });
    // Live changes behind their subject's bulk events there: those move ahead of the backlog.
    if (requested === 'live' && this.options.lanes?.expedite) {
      const refusedIds = new Set(refused.map((failure) => failure.eventId));
      for (const [eventId, key] of keyOf)
        if (!refusedIds.has(eventId)) this.options.lanes.expedite(key);
    }
    return [...failures, ...refused];
  }

  /** `groups`: each event's lane key by event id, sent as its message group (the bulk lane). */
  private async deliver(
    route: EventRoute,
    queueUrl: string,
    matching: readonly RoutedEnvelope[],
    metrics: PublishMetrics,
    groups?: ReadonlyMap<string, LaneKey>,
  ): Promise<PublishFailure[]> {
    if (matching.length === 0) return [];
    const fifo = queueUrl.endsWith('.fifo');
    const prepared: PreparedEntry<SqsEntry>[] = [];
    const failures: PublishFailure[] = [];
    const seenPerGroup = new Map<string, number>();
    for (const { envelope, body, bodyBytes: bytes, thinned } of matching) {
      const event = envelope.detail;
      const entry: SqsEntry = { MessageBody: body };
      if (bytes > SQS_MAX_BYTES) {
        failures.push({
          eventId: event.id,
          eventType: event.type,
          target: 'local-router',
          code: 'TargetMessageTooLarge',
          message: `rule ${route.name}: envelope of ${bytes} bytes exceeds the SQS limit of ${SQS_MAX_BYTES}`,
        });
        continue;
      }
      let layer = 0;
      const group = groups?.get(event.id);
      if (group !== undefined) entry.MessageGroupId = laneGroup(group);
      if (fifo) {
        const key = entityKeyOf(event);
        layer = seenPerGroup.get(key) ?? 0;
        seenPerGroup.set(key, layer + 1);
        entry.MessageGroupId = sqsFifoId(key);
        entry.MessageDeduplicationId = sqsFifoId(event.id);
      }
      prepared.push({ event, entry, bytes, thinned, layer });
    }
    const outcome = await deliverInBatches(prepared, {
      target: 'local-router',
      maxEntries: SQS_BATCH_MAX_ENTRIES,
      maxBytes: SQS_MAX_BYTES,
      concurrency: 4,
      send: (entries) => sendSqsBatch(this.options.client, queueUrl, entries),
      clock: this.options.clock ?? systemClock,
      random: this.options.random ?? systemRandom,
      retry: { ...DEFAULT_RETRY_OPTIONS, ...this.options.retry },
      metrics,
    });
    return [...failures, ...outcome.failures];
  }
}
