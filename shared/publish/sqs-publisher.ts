import { createHash } from 'node:crypto';
import {
  type MessageAttributeValue,
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { type Clock, type RandomSource, systemClock, systemRandom } from '../clock.ts';
import { deliverInBatches, type EntryRefusal } from './batch-delivery.ts';
import { type PreparedEntry, prepareWithinLimit } from './batch-packing.ts';
import { NO_PUBLISH_METRICS, type PublishMetrics } from './publish-metrics.ts';
import { entityKeyOf, type PublishableEvent, utf8Bytes } from './publishable-event.ts';
import type {
  EventPublisher,
  PublishFailure,
  PublishOptions,
  PublishResult,
  PublishTargetName,
} from './publisher.ts';
import { PUBLISH_RETRY_OPTIONS, type RetryOptions } from './retry-backoff.ts';

/** SendMessageBatch takes at most 10 entries (SQS quota). */
export const SQS_BATCH_MAX_ENTRIES = 10;

/**
 * Bytes per message and per batch. SQS has accepted 1 MiB since August 2025, but we stay
 * at the long-standing 256 KiB: EventBridge caps an event at 256 KB anyway (one event
 * must fit both targets the same way), and queues created with the old default
 * `MaximumMessageSize` of 262,144, older SDKs and emulators still enforce it.
 */
export const SQS_MAX_BYTES = 256 * 1024;

/** An SQS entry before it gets its position id in a batch. */
export type SqsEntry = Omit<SendMessageBatchRequestEntry, 'Id'>;

/** Construction options of {@link SqsPublisher}. */
export interface SqsPublisherOptions {
  client: SQSClient;
  queueUrl: string;
  /** FIFO mode; default: the queue URL ends in `.fifo`. */
  fifo?: boolean;
  /** SendMessageBatch requests in flight at once (default 4). */
  concurrency?: number;
  /** The message of an event (default {@link toSqsEntry}). */
  encode?: (event: PublishableEvent, fifo: boolean, options: PublishOptions) => SqsEntry;
  /** The name failures and metrics carry (default `sqs`). */
  target?: PublishTargetName;
  retry?: Partial<RetryOptions>;
  clock?: Clock;
  random?: RandomSource;
  metrics?: PublishMetrics;
}

/** The two characters JSON.stringify leaves raw that an SQS body may not hold. */
const SQS_REFUSED_CHARACTERS = /[\uFFFE\uFFFF]/g;

/**
 * `value` as JSON text SQS accepts as a message body: SQS takes only #x9, #xA, #xD,
 * #x20-#xD7FF, #xE000-#xFFFD and #x10000-#x10FFFF, and refuses a message holding any other
 * for good (InvalidMessageContents). JSON.stringify escapes control characters and lone
 * surrogates, but not U+FFFE and U+FFFF: those are written as `\ufffe` and `\uffff`, which
 * parse back to the same string. Pure.
 * @example sqsJson({ note: 'a\uFFFF' }) // '{"note":"a\\uffff"}'
 */
export function sqsJson(value: unknown): string {
  return JSON.stringify(value).replace(
    SQS_REFUSED_CHARACTERS,
    (character) => `\\u${character.charCodeAt(0).toString(16)}`,
  );
}

/** Every character outside what SQS takes in a body or a String attribute value (see sqsJson). */
const SQS_OUTSIDE_CHARACTERS = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/**
 * `value` as an SQS String message attribute value: a String value has the same restrictions
 * as a body (#x9, #xA, #xD, #x20-#xD7FF, #xE000-#xFFFD, #x10000-#x10FFFF), and the text is
 * sent as it is, not as JSON, so each character outside them (a control character, U+FFFE,
 * U+FFFF, a lone surrogate) becomes U+FFFD, as SQS itself does in a body it takes. The exact
 * value stays in the body. Pure.
 * @example sqsText('a\u0001b') // 'a\uFFFDb'
 */
export function sqsText(value: string): string {
  return value.replace(SQS_OUTSIDE_CHARACTERS, '\uFFFD');
}

/** What SQS takes as a MessageGroupId or MessageDeduplicationId: 1 to 128 of `!` to `~`. */
const SQS_FIFO_ID = /^[\x21-\x7E]{1,128}$/;

/**
 * `value` as a FIFO MessageGroupId or MessageDeduplicationId: SQS takes at most 128
 * characters, each alphanumeric or punctuation (``!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~``), and
 * refuses any other message for good. A value within that is sent as it is; any other (an
 * entity id with a space or a non-ASCII character, a key over 128 characters) as `sha256:` and
 * the hex SHA-256 of its UTF-8 bytes (71 characters): the same value always gives the same
 * id, so an entity's events stay in one group, and two values share one only by a SHA-256
 * collision. Pure.
 * @example sqsFifoId('customer:c-1') // 'customer:c-1'
 */
export function sqsFifoId(value: string): string {
  if (SQS_FIFO_ID.test(value)) return value;
  return `sha256:${createHash('sha256').update(value, 'utf8').digest('hex')}`;
}

/**
 * The SQS message of an event: body = the event JSON, attributes `eventType`,
 * `entityType`, `entityId` (for consumers and SNS-style filtering; see {@link sqsText}); in
 * FIFO mode `MessageGroupId` = `<entityType>:<entityId>` (order per entity) and
 * `MessageDeduplicationId` = the event id (a republished event is dropped by SQS within
 * its 5-minute deduplication interval), each through {@link sqsFifoId}.
 */
export function toSqsEntry(event: PublishableEvent, fifo: boolean): SqsEntry {
  const entry: SqsEntry = {
    MessageBody: sqsJson(event),
    MessageAttributes: {
      eventType: stringAttribute(event.type),
      ...(event.data.entityType ? { entityType: stringAttribute(event.data.entityType) } : {}),
      ...(event.data.entityId ? { entityId: stringAttribute(event.data.entityId) } : {}),
    },
  };
  if (fifo) {
    entry.MessageGroupId = sqsFifoId(entityKeyOf(event));
    entry.MessageDeduplicationId = sqsFifoId(event.id);
  }
  return entry;
}

/** Size of a message as SQS counts it: the body plus each attribute's name, type and value. */
export function sqsEntryBytes(entry: SqsEntry): number {
  let size = utf8Bytes(entry.MessageBody ?? '');
  for (const [name, value] of Object.entries(entry.MessageAttributes ?? {})) {
    size += utf8Bytes(name) + utf8Bytes(value.DataType ?? '') + utf8Bytes(value.StringValue ?? '');
  }
  return size;
}

/**
 * Publishes events to one SQS queue with SendMessageBatch (10 entries, 256 KiB per
 * request). Entries in `Failed[]` with `SenderFault: false` are retried alone with
 * jittered backoff; sender faults are reported as failures. In FIFO mode each request
 * holds at most one event per entity and the next event of an entity is sent only after
 * the previous one is accepted, so a retried entry never overtakes or falls behind.
 * @example new SqsPublisher({ client, queueUrl: 'https://sqs.eu-west-1.amazonaws.com/1/changes.fifo' })
 */
export class SqsPublisher implements EventPublisher {
  private readonly options: SqsPublisherOptions;
  private readonly fifo: boolean;
  private readonly retry: RetryOptions;

  constructor(options: SqsPublisherOptions) {
    this.options = options;
    this.fifo = options.fifo ?? options.queueUrl.endsWith('.fifo');
    this.retry = { ...PUBLISH_RETRY_OPTIONS, ...options.retry };
  }

  /** See {@link EventPublisher.publish}. */
  async publish(
    events: readonly PublishableEvent[],
    options: PublishOptions = {},
  ): Promise<PublishResult> {
    const metrics = this.options.metrics ?? NO_PUBLISH_METRICS;
    const target = this.options.target ?? 'sqs';
    const encode = this.options.encode ?? toSqsEntry;
    const prepared: PreparedEntry<SqsEntry>[] = [];
    const failures: PublishFailure[] = [];
    const seenPerGroup = new Map<string, number>();
    for (const event of events) {
      const item = prepareWithinLimit(event, SQS_MAX_BYTES, target, (e) => {
        const entry = encode(e, this.fifo, options);
        return { entry, bytes: sqsEntryBytes(entry) };
      });
      if (!('entry' in item)) {
        failures.push(item);
        metrics.recordFailed(target, item.eventType, 1, item.code);
        continue;
      }
      if (this.fifo) {
        const key = entityKeyOf(event);
        item.layer = seenPerGroup.get(key) ?? 0;
        seenPerGroup.set(key, item.layer + 1);
      }
      prepared.push(item);
    }
    const outcome = await deliverInBatches(prepared, {
      target,
      maxEntries: SQS_BATCH_MAX_ENTRIES,
      maxBytes: SQS_MAX_BYTES,
      concurrency: this.options.concurrency ?? 4,
      send: (entries) => sendSqsBatch(this.options.client, this.options.queueUrl, entries),
      clock: this.options.clock ?? systemClock,
      random: this.options.random ?? systemRandom,
      retry: this.retry,
      metrics,
      deadline: options.deadline,
    });
    return {
      published: outcome.delivered.length,
      thinned: outcome.delivered.filter((item) => item.thinned).length,
      failures: [...failures, ...outcome.failures],
    };
  }
}

/**
 * Per-entry codes that pass if sent again later, whatever `SenderFault` says: SQS models its
 * throttling errors as client faults (`KMS.ThrottlingException`, HTTP 400, when the queue's
 * KMS key is throttled; `RequestThrottled`, 403, over the queue's request rate), so they come
 * back with `SenderFault: true`, yet they are transient, as are the common AWS errors
 * `ThrottlingException`, `ServiceUnavailable` and `InternalFailure`.
 */
const TRANSIENT_ENTRY_CODES = new Set([
  'KMS.ThrottlingException',
  'KmsThrottled',
  'RequestThrottled',
  'ThrottlingException',
  'Throttling',
  'ServiceUnavailable',
  'InternalFailure',
  'InternalError',
]);

/** Whether SQS may accept an entry it refused with `code` when it is sent again. */
export function isRetryableSqsEntry(
  code: string | undefined,
  senderFault: boolean | undefined,
): boolean {
  return !senderFault || (code !== undefined && TRANSIENT_ENTRY_CODES.has(code));
}

/**
 * Sends one SendMessageBatch and returns the refusals by position: `Failed[]` entries
 * with `SenderFault: false` or a throttling code ({@link isRetryableSqsEntry}) are
 * retryable; other sender faults repeat on every attempt and are not. Throws when the
 * request itself fails.
 */
export async function sendSqsBatch(
  client: SQSClient,
  queueUrl: string,
  entries: readonly SqsEntry[],
): Promise<ReadonlyMap<number, EntryRefusal>> {
  const response = await client.send(
    new SendMessageBatchCommand({
      QueueUrl: queueUrl,
      // Batch entry ids only need to be unique within the request: positions are.
      Entries: entries.map((entry, index) => ({ Id: String(index), ...entry })),
    }),
  );
  const refusals = new Map<number, EntryRefusal>();
  for (const failed of response.Failed ?? []) {
    const index = Number(failed.Id);
    if (!Number.isInteger(index) || index < 0 || index >= entries.length) continue;
    refusals.set(index, {
      code: failed.Code ?? 'Unknown',
      message: failed.Message ?? 'no message',
      retryable: isRetryableSqsEntry(failed.Code, failed.SenderFault),
    });
  }
  return refusals;
}

function stringAttribute(value: string): MessageAttributeValue {
  return { DataType: 'String', StringValue: sqsText(value) };
}
