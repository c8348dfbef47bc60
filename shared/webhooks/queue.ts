import {
  type MessageAttributeValue,
  SendMessageBatchCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { type Clock, type RandomSource, systemClock, systemRandom } from '../clock.ts';
import {
  backoffDelayMs,
  DEFAULT_RETRY_OPTIONS,
  type RetryOptions,
} from '../publish/retry-backoff.ts';
import { isRetryableSqsEntry, sqsJson } from '../publish/sqs-publisher.ts';
import type { DeliveryMessage } from './messages.ts';

/** Longest `DelaySeconds` SQS accepts: 900 s (15 min). Longer waits re-defer on receipt. */
export const SQS_MAX_DELAY_SECONDS = 900;

/** Most entries of one SQS `SendMessageBatch` request (SQS limit). */
export const SQS_SEND_BATCH_MAX_ENTRIES = 10;

/**
 * The message attribute that marks a delivery deferred for its place in a slow endpoint's line
 * (see planLineDeferrals), value `line`: the local queue counts such messages, while delayed,
 * as undelivered backlog (retries it does not count). SQS keeps it as any attribute.
 */
export const WAITS_IN_LINE_ATTRIBUTE = 'bridge-waits';

/**
 * The message attribute that carries when a message is due (epoch ms, as a `Number`): SQS
 * delays only by whole seconds (`DelaySeconds`, rounded up so nothing comes early), while the
 * local queue, which keeps milliseconds, makes the message visible then, no later than its
 * `DelaySeconds`. SQS keeps it as any attribute. Sent only by a queue built with `sendDueAt`.
 */
export const DUE_AT_ATTRIBUTE = 'bridge-due-at';

/** One message of {@link DeliveryQueue.sendBatch}. */
export interface QueuedDelivery {
  message: DeliveryMessage;
  delaySeconds: number;
  /** When it is due (epoch ms): `delaySeconds` rounds it up (see {@link DUE_AT_ATTRIBUTE}). */
  dueAt?: number;
  /**
   * Deferred for its turn in a slow endpoint's line (see WAITS_IN_LINE_ATTRIBUTE): undelivered
   * backlog while it waits, unlike a retry or a pause (default false).
   */
  waitsInLine?: boolean;
}

/** The dispatch queue as the dispatcher writes to it. */
export interface DeliveryQueue {
  /** Enqueues `message`, invisible for `delaySeconds` (whole seconds, 0 to {@link SQS_MAX_DELAY_SECONDS}). */
  send(message: DeliveryMessage, delaySeconds: number): Promise<void>;
  /**
   * Enqueues many messages, each with its own delay, in as few requests as the queue allows.
   * Never throws for a failed entry: returns the indexes (into `entries`) that were not sent.
   */
  sendBatch(entries: readonly QueuedDelivery[]): Promise<number[]>;
}

/** Whole seconds to wait for `dueAt`, capped at the SQS maximum (a later hop re-defers). */
export function delaySecondsUntil(dueAt: number, nowMs: number): number {
  return Math.min(SQS_MAX_DELAY_SECONDS, Math.max(0, Math.ceil((dueAt - nowMs) / 1000)));
}

const WAITS_IN_LINE = {
  [WAITS_IN_LINE_ATTRIBUTE]: { DataType: 'String', StringValue: 'line' },
};

/** The message attributes of `entry`: its line (see WAITS_IN_LINE_ATTRIBUTE), its due time if sent. */
function attributesOf(
  entry: QueuedDelivery,
  sendDueAt: boolean,
): { MessageAttributes?: Record<string, MessageAttributeValue> } {
  const attributes: Record<string, MessageAttributeValue> = entry.waitsInLine
    ? { ...WAITS_IN_LINE }
    : {};
  if (sendDueAt && entry.dueAt !== undefined)
    attributes[DUE_AT_ATTRIBUTE] = {
      DataType: 'Number',
      StringValue: String(Math.round(entry.dueAt)),
    };
  return Object.keys(attributes).length === 0 ? {} : { MessageAttributes: attributes };
}

/** Whole seconds SQS accepts as `DelaySeconds`. */
function clampDelay(delaySeconds: number): number {
  return Math.min(SQS_MAX_DELAY_SECONDS, Math.max(0, Math.round(delaySeconds)));
}

/** Backoff of {@link SqsDeliveryQueue} between attempts of entries SQS refused for a while. */
export interface SqsDeliveryQueueOptions {
  /**
   * Whether each message carries its due time in milliseconds (DUE_AT_ATTRIBUTE): for the
   * local queue, which honours it (default false: SQS ignores it).
   */
  sendDueAt?: boolean;
  clock?: Clock;
  random?: RandomSource;
  retry?: Partial<RetryOptions>;
}

/**
 * The SQS adapter: `SendMessage` for one message, `SendMessageBatch` (10 per request, each
 * entry with its own delay) for many. Bodies are written with sqsJson: a subject (an entity
 * id) holding U+FFFE or U+FFFF would have SQS refuse the message for good. Entries a batch
 * refused for a transient reason (throttling, an internal error: see isRetryableSqsEntry) are
 * sent again alone with jittered backoff, up to `retry.maxAttempts` attempts: the record that
 * needed one would otherwise fail, and come back with its whole batch's work only after the
 * queue's visibility timeout (18 minutes by default).
 */
export class SqsDeliveryQueue implements DeliveryQueue {
  private readonly clock: Clock;
  private readonly random: RandomSource;
  private readonly retry: RetryOptions;
  private readonly sendDueAt: boolean;

  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
    options: SqsDeliveryQueueOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? systemRandom;
    this.retry = { ...DEFAULT_RETRY_OPTIONS, ...options.retry };
    this.sendDueAt = options.sendDueAt ?? false;
  }

  async send(message: DeliveryMessage, delaySeconds: number): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: sqsJson(message),
        DelaySeconds: clampDelay(delaySeconds),
      }),
    );
  }

  async sendBatch(entries: readonly QueuedDelivery[]): Promise<number[]> {
    const requests: Promise<number[]>[] = [];
    for (let first = 0; first < entries.length; first += SQS_SEND_BATCH_MAX_ENTRIES) {
      const indexes = entries
        .slice(first, first + SQS_SEND_BATCH_MAX_ENTRIES)
        .map((_, offset) => first + offset);
      requests.push(this.sendChunk(entries, indexes));
    }
    return (await Promise.all(requests)).flat();
  }

  private async sendChunk(
    entries: readonly QueuedDelivery[],
    indexes: number[],
  ): Promise<number[]> {
    const unsent: number[] = [];
    let pending = indexes;
    for (let attempt = 1; pending.length > 0; attempt++) {
      let failed: { index: number; retryable: boolean }[];
      try {
        const result = await this.client.send(
          new SendMessageBatchCommand({
            QueueUrl: this.queueUrl,
            Entries: pending.map((index) => ({
              Id: String(index),
              MessageBody: sqsJson(entries[index]!.message),
              DelaySeconds: clampDelay(entries[index]!.delaySeconds),
              ...attributesOf(entries[index]!, this.sendDueAt),
            })),
          }),
        );
        failed = (result.Failed ?? [])
          .map((failure) => ({
            index: Number(failure.Id),
            retryable: isRetryableSqsEntry(failure.Code, failure.SenderFault),
          }))
          .filter((failure) => pending.includes(failure.index));
      } catch {
        // The whole request failed (network, throttling) after the SDK's own retries: every
        // entry of it is unsent.
        return [...unsent, ...pending];
      }
      const again = failed.filter((failure) => failure.retryable).map((f) => f.index);
      unsent.push(...failed.filter((failure) => !failure.retryable).map((f) => f.index));
      if (again.length === 0) break;
      if (attempt >= this.retry.maxAttempts) {
        unsent.push(...again);
        break;
      }
      await this.clock.sleep(backoffDelayMs(attempt, this.random, this.retry));
      pending = again;
    }
    return unsent;
  }
}

/** One message held by {@link MemoryDeliveryQueue}, shaped like the parts of an SQS record we read. */
export interface QueuedMessage {
  messageId: string;
  body: string;
}

/**
 * An in-memory queue for tests and benchmarks: honours delays on its clock, hands out due
 * messages in order. Envelopes can be put on it too, as the EventBridge rule does on the
 * real queue. Messages are kept sorted by when they become visible, so a receive takes
 * from the front instead of scanning the whole queue.
 */
export class MemoryDeliveryQueue implements DeliveryQueue {
  private readonly messages: (QueuedMessage & { visibleAt: number; seq: number })[] = [];
  private seq = 0;
  private readonly inLine = new Set<string>();

  constructor(private readonly clock: Clock) {}

  async send(message: DeliveryMessage, delaySeconds: number): Promise<void> {
    this.sendRaw(JSON.stringify(message), delaySeconds);
  }

  async sendBatch(entries: readonly QueuedDelivery[]): Promise<number[]> {
    for (const entry of entries) {
      this.sendRaw(JSON.stringify(entry.message), entry.delaySeconds);
      if (entry.waitsInLine) this.inLine.add(`msg-${this.seq}`);
    }
    return [];
  }

  /** Messages waiting that were sent as waiting in an endpoint's line (see QueuedDelivery). */
  get waitingInLine(): number {
    return this.messages.filter((message) => this.inLine.has(message.messageId)).length;
  }

  /** Enqueues any body (an EventBridge envelope, a malformed body in tests). */
  sendRaw(body: string, delaySeconds = 0): void {
    this.seq += 1;
    const message = {
      messageId: `msg-${this.seq}`,
      body,
      visibleAt: this.clock.now() + delaySeconds * 1000,
      seq: this.seq,
    };
    // Insert after every message visible no later (binary search): order is (visibleAt, seq).
    let low = 0;
    let high = this.messages.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.messages[middle]!.visibleAt <= message.visibleAt) low = middle + 1;
      else high = middle;
    }
    this.messages.splice(low, 0, message);
  }

  /** Removes and returns up to `max` messages that are visible now, oldest first. */
  receive(max: number): QueuedMessage[] {
    const now = this.clock.now();
    let count = 0;
    while (count < max && count < this.messages.length && this.messages[count]!.visibleAt <= now) {
      count += 1;
    }
    return this.messages.splice(0, count).map(({ messageId, body }) => {
      this.inLine.delete(messageId);
      return { messageId, body };
    });
  }

  /** Messages waiting, visible or not. */
  get size(): number {
    return this.messages.length;
  }

  /** When the next message becomes visible, or `undefined` when empty. */
  nextVisibleAt(): number | undefined {
    return this.messages[0]?.visibleAt;
  }
}
