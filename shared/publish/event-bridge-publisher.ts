import {
  type EventBridgeClient,
  PutEventsCommand,
  type PutEventsRequestEntry,
} from '@aws-sdk/client-eventbridge';
import { type Clock, type RandomSource, systemClock, systemRandom } from '../clock.ts';
import { deliverInBatches, type EntryRefusal } from './batch-delivery.ts';
import { type PreparedEntry, prepareWithinLimit } from './batch-packing.ts';
import type { BusRuleFilter } from './bus-rules.ts';
import {
  DEFAULT_EVENT_SOURCE,
  PUT_EVENTS_MAX_BYTES,
  PUT_EVENTS_MAX_ENTRIES,
  sizedEventBridgeEntry,
} from './event-bridge-entry.ts';
import { NO_PUBLISH_METRICS, type PublishMetrics } from './publish-metrics.ts';
import type { PublishableEvent } from './publishable-event.ts';
import {
  type EventPublisher,
  PublishError,
  type PublishFailure,
  type PublishOptions,
  type PublishResult,
} from './publisher.ts';
import { PUBLISH_RETRY_OPTIONS, type RetryOptions } from './retry-backoff.ts';

/** Construction options of {@link EventBridgePublisher}. */
export interface EventBridgePublisherOptions {
  client: EventBridgeClient;
  /** Bus name or ARN (default `default`). */
  eventBusName?: string;
  /** EventBridge `Source` (default `change-bridge`). */
  source?: string;
  /** PutEvents requests in flight at once (default 4). */
  concurrency?: number;
  /**
   * When set, only events some rule on the bus matches are put (see {@link BusRuleFilter});
   * the others are accepted without a request, as EventBridge drops an event no rule
   * matches. Absent: every event is put.
   */
  ruleFilter?: BusRuleFilter;
  retry?: Partial<RetryOptions>;
  clock?: Clock;
  random?: RandomSource;
  metrics?: PublishMetrics;
}

/**
 * Per-entry error codes that repeating can never fix for that entry: reported as failures,
 * so the other events still go out and the window is committed. PutEvents documents
 * MalformedDetail, InvalidArgument and RedactionFailure; ValidationException is AWS's common
 * code for input failing a constraint (HTTP 400), never transient. Codes that mean the caller
 * lacks permission throw instead (every entry would fail; the poll fails until it is granted),
 * the transient ones PutEvents documents are retried, then thrown ({@link TRANSIENT_CODES}),
 * and any other code is retried as they are, then reported for its event
 * ({@link EntryRefusal.undocumented}), not thrown: a poll repeated at every run for a code that
 * never passes would hold its stream for ever.
 */
const REJECTED_CODES = new Set([
  'MalformedDetail',
  'InvalidArgument',
  'RedactionFailure',
  'ValidationException',
]);
/**
 * The codes PutEvents documents as retryable (InternalFailure, ThrottlingException), and
 * MissingResult (a response without this entry's result, which says nothing of the entry).
 */
const TRANSIENT_CODES = new Set(['InternalFailure', 'ThrottlingException', 'MissingResult']);
const FATAL_CODES = new Set([
  'AccessDeniedException',
  'InvalidAccountIdException',
  'NotAuthorizedForSourceException',
  'NotAuthorizedForDetailTypeException',
]);

/**
 * Publishes events to an EventBridge bus with PutEvents: at most 10 entries and 256 KB per
 * request; only the entries a response marks failed are sent again, with jittered backoff
 * on the injected clock, up to `retry.maxAttempts`. An event over 256 KB is sent thin.
 * @example new EventBridgePublisher({ client: new EventBridgeClient({}), eventBusName: 'changes' })
 */
export class EventBridgePublisher implements EventPublisher {
  private readonly client: EventBridgeClient;
  private readonly entryOptions: { source: string; eventBusName: string };
  private readonly concurrency: number;
  private readonly retry: RetryOptions;
  private readonly clock: Clock;
  private readonly random: RandomSource;
  private readonly metrics: PublishMetrics;
  private readonly ruleFilter: BusRuleFilter | undefined;

  constructor(options: EventBridgePublisherOptions) {
    this.client = options.client;
    this.entryOptions = {
      source: options.source ?? DEFAULT_EVENT_SOURCE,
      eventBusName: options.eventBusName ?? 'default',
    };
    this.concurrency = options.concurrency ?? 4;
    this.retry = { ...PUBLISH_RETRY_OPTIONS, ...options.retry };
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? systemRandom;
    this.metrics = options.metrics ?? NO_PUBLISH_METRICS;
    this.ruleFilter = options.ruleFilter;
  }

  /** See {@link EventPublisher.publish}. */
  async publish(
    events: readonly PublishableEvent[],
    options: PublishOptions = {},
  ): Promise<PublishResult> {
    let prepared: PreparedEntry<PutEventsRequestEntry>[] = [];
    const failures: PublishFailure[] = [];
    for (const event of events) {
      const item = prepareWithinLimit(event, PUT_EVENTS_MAX_BYTES, 'eventbridge', (e) => {
        const { entry, bytes } = sizedEventBridgeEntry(e, this.entryOptions);
        return { entry, bytes };
      });
      if ('entry' in item) prepared.push(item);
      else failures.push(item);
    }
    let unmatched = 0;
    if (this.ruleFilter && prepared.length > 0) {
      const matches = await this.ruleFilter.matcher();
      const all = prepared.length;
      prepared = prepared.filter((item) => matches(item.entry, item.event));
      unmatched = all - prepared.length;
      if (unmatched > 0) this.metrics.recordUnmatched('eventbridge', unmatched);
    }
    for (const failure of failures) {
      this.metrics.recordFailed('eventbridge', failure.eventType, 1, failure.code);
    }
    const outcome = await deliverInBatches(prepared, {
      target: 'eventbridge',
      maxEntries: PUT_EVENTS_MAX_ENTRIES,
      maxBytes: PUT_EVENTS_MAX_BYTES,
      concurrency: this.concurrency,
      send: (entries) => this.putEvents(entries),
      clock: this.clock,
      random: this.random,
      retry: this.retry,
      metrics: this.metrics,
      deadline: options.deadline,
    });
    return {
      published: outcome.delivered.length + unmatched,
      thinned: outcome.delivered.filter((item) => item.thinned).length,
      failures: [...failures, ...outcome.failures],
    };
  }

  private async putEvents(
    entries: readonly PutEventsRequestEntry[],
  ): Promise<ReadonlyMap<number, EntryRefusal>> {
    const response = await this.client.send(new PutEventsCommand({ Entries: [...entries] }));
    const refusals = new Map<number, EntryRefusal>();
    if (!response.FailedEntryCount) return refusals;
    // Result entries are positional: the nth result is the nth request entry.
    entries.forEach((_, index) => {
      const result = response.Entries?.[index];
      if (result?.EventId && !result.ErrorCode) return;
      const code = result?.ErrorCode ?? 'MissingResult';
      const message = result?.ErrorMessage ?? 'no result for this entry';
      if (FATAL_CODES.has(code)) {
        throw new PublishError('eventbridge', `${code}: ${message}`, { retryable: false });
      }
      if (REJECTED_CODES.has(code)) refusals.set(index, { code, message, retryable: false });
      else if (TRANSIENT_CODES.has(code)) refusals.set(index, { code, message, retryable: true });
      else refusals.set(index, { code, message, retryable: true, undocumented: true });
    });
    return refusals;
  }
}
