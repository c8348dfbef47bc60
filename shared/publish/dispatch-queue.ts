import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Clock, RandomSource } from '../clock.ts';
import { DEFAULT_EVENT_SOURCE } from './event-bridge-entry.ts';
import type { PublishMetrics } from './publish-metrics.ts';
import { entityKeyOf, type PublishableEvent } from './publishable-event.ts';
import type { RetryOptions } from './retry-backoff.ts';
import { type SqsEntry, SqsPublisher, sqsFifoId, sqsJson } from './sqs-publisher.ts';

/** The target name of the dispatch queue in failures and metrics. */
export const DISPATCH_QUEUE_TARGET = 'dispatch-queue';

/**
 * The member put first in the envelope of a live change queued in the bulk lane behind its
 * subject's bulk events (by LaneRoutingPublisher in AWS, LocalEventRouter locally): the
 * dispatcher handles it as live work there. No EventBridge envelope has it; the event itself is
 * unchanged.
 */
export const ASKED_LIVE_MEMBER = 'bridge-asked-live';

/** How an envelope marked with {@link ASKED_LIVE_MEMBER} begins (ASCII: its length is its bytes). */
const ASKED_LIVE_PREFIX = `{${JSON.stringify(ASKED_LIVE_MEMBER)}:true,`;

/** The bytes {@link askedLiveEnvelope} adds to an envelope. */
export const ASKED_LIVE_BYTES = ASKED_LIVE_PREFIX.length - 1;

/**
 * An envelope's JSON text (an object with members) marked with {@link ASKED_LIVE_MEMBER}, put
 * first, without parsing it again: the one form both the poller's publisher and the local router
 * write. Pure.
 */
export function askedLiveEnvelope(envelopeText: string): string {
  return ASKED_LIVE_PREFIX + envelopeText.slice(1);
}

/**
 * The dispatch queue message of an event: the fields of the EventBridge envelope the
 * dispatcher reads (`detail-type`, `source`, `detail` = the event), plus `version`, `id`
 * (the event id) and `time`, so the dispatcher parses it exactly as it parsed what an
 * EventBridge rule delivered. Account, region and resources are left out: nobody reads
 * them here, and every byte is paid for per 64 KB chunk. `askedLive`: a live change the bulk
 * lane carries for its subject's order, marked ({@link ASKED_LIVE_MEMBER}).
 */
export function toDispatchEntry(
  event: PublishableEvent,
  source: string,
  fifo = false,
  askedLive = false,
): SqsEntry {
  const envelope = {
    version: '0',
    id: event.id,
    'detail-type': event.type,
    source,
    time: event.time,
    detail: event,
  };
  const body = sqsJson(envelope);
  const entry: SqsEntry = { MessageBody: askedLive ? askedLiveEnvelope(body) : body };
  if (fifo) {
    entry.MessageGroupId = sqsFifoId(entityKeyOf(event));
    entry.MessageDeduplicationId = sqsFifoId(event.id);
  }
  return entry;
}

/** Options of {@link createDispatchQueuePublisher}. */
export interface DispatchQueuePublisherOptions {
  client: SQSClient;
  queueUrl: string;
  /** `source` of the envelope (default `change-bridge`). */
  source?: string;
  clock?: Clock;
  random?: RandomSource;
  metrics?: PublishMetrics;
  retry?: Partial<RetryOptions>;
}

/**
 * Feeds the webhook dispatcher's queue directly with SendMessageBatch (10 messages and
 * 256 KiB per request; an event too large goes thin, as on the bus): one request per ten
 * events instead of one EventBridge rule delivery per event.
 * @example createDispatchQueuePublisher({ client: new SQSClient({}), queueUrl: process.env.DISPATCH_QUEUE_URL })
 */
export function createDispatchQueuePublisher(options: DispatchQueuePublisherOptions): SqsPublisher {
  const source = options.source ?? DEFAULT_EVENT_SOURCE;
  return new SqsPublisher({
    client: options.client,
    queueUrl: options.queueUrl,
    target: DISPATCH_QUEUE_TARGET,
    encode: (event, fifo, options) =>
      toDispatchEntry(event, source, fifo, options.askedLane === 'live' && options.lane === 'bulk'),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.random ? { random: options.random } : {}),
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.retry ? { retry: options.retry } : {}),
  });
}
