import { setMaxListeners } from 'node:events';
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import { z } from 'zod';
import { type Clock, systemClock } from '../clock.ts';
import { withMemberOnRead } from './disk-queue/lazy-md5.ts';
import { EMULATOR_ACCOUNT_ID, EMULATOR_REGION } from './emulator-ids.ts';
import { MessageBudget } from './message-budget.ts';

/** A Lambda SQS handler with partial batch responses (`ReportBatchItemFailures`). */
export type SqsBatchHandler = (event: SQSEvent) => Promise<SQSBatchResponse | undefined>;

/** SQS's most messages per ReceiveMessage and per DeleteMessageBatch. */
const SQS_RECEIVE_MAX = 10;

/** Options of {@link startEventSourceLoop}. */
export interface EventSourceLoopOptions {
  client: SQSClient;
  queueUrl: string;
  handler: SqsBatchHandler;
  /**
   * Messages per invocation (default 10). Above 10 (SQS's most per receive), the loop gathers
   * several receives into one invocation, as Lambda does with a batching window: the first
   * receive long-polls, the next ones take what is already there.
   */
  batchSize?: number;
  /** Long-poll wait per receive, 0–20 s (default 20, as Lambda's pollers). */
  waitTimeSeconds?: number;
  /** Receive-and-invoke workers running at once (default 1). */
  concurrency?: number;
  /**
   * Messages held at once over every worker (default: `concurrency` × `batchSize`, no bound
   * beyond the workers'): with more workers than that many full batches, small batches run
   * many at once while large ones stay as few as this allows (see MessageBudget).
   */
  maxMessagesInFlight?: number;
  /** `eventSourceARN` of the records (default: derived from the queue URL). */
  queueArn?: string;
  region?: string;
  /**
   * Told about failed deletes and handler errors, and failed receives: the first at once, then
   * one per {@link RECEIVE_FAILURE_TOLD_EVERY_MS} at most while they go on (default: ignore).
   */
  onError?: (error: unknown) => void;
  /** Paces retries after a failed receive (default: the wall clock). */
  clock?: Clock;
  /**
   * Awaited by each worker before it receives (default: none): the loop takes no messages until
   * it resolves. Its signal aborts as the loop stops.
   */
  beforeReceive?: (signal: AbortSignal) => Promise<void>;
}

/** A running loop. */
export interface EventSourceLoop {
  /** Stops polling, lets in-flight invocations finish (and delete), then resolves. */
  stop(): Promise<void>;
}

/** A worker's wait after a failed receive, doubled per failure in a row up to {@link RECEIVE_RETRY_MAX_MS}. */
const RECEIVE_RETRY_MS = 1_000;
/**
 * The longest wait of a worker after failed receives: the longest deliveries wait once the
 * queue takes receives again (a full disk with room again).
 */
export const RECEIVE_RETRY_MAX_MS = 5_000;
/**
 * How often failed receives are told at most while they go on (the first at once): a queue that
 * cannot note its receives (its disk full) fails every worker's, 32 of them a lane, and each
 * told at every try flooded the output with a line per worker per second.
 */
export const RECEIVE_FAILURE_TOLD_EVERY_MS = 30_000;

/** Lambda's partial batch response; anything else it treats as "the whole batch failed". */
const BatchResponseSchema = z
  .object({ batchItemFailures: z.array(z.object({ itemIdentifier: z.string().min(1) })) })
  .nullish();

/**
 * Plays Lambda's SQS event source mapping: long-polls the queue, invokes `handler` with a
 * real `SQSEvent`, deletes every message not listed in `batchItemFailures`, and leaves the
 * listed ones to reappear after the visibility timeout. As in Lambda, a handler that
 * throws, or answers with an identifier not in the batch, fails the whole batch.
 * A receive cut short by `stop()` may leave a message invisible until its visibility
 * timeout: delivery stays at least once.
 * @example const loop = startEventSourceLoop({ client, queueUrl, handler }); await loop.stop();
 */
export function startEventSourceLoop(options: EventSourceLoopOptions): EventSourceLoop {
  const abort = new AbortController();
  // Each worker's receive listens on the signal while it long-polls (and the budget once).
  setMaxListeners(Math.max(1, options.concurrency ?? 1) + 10, abort.signal);
  const clock = options.clock ?? systemClock;
  const region = options.region ?? EMULATOR_REGION;
  const queueArn = options.queueArn ?? queueArnOf(options.queueUrl, region);
  const report = (error: unknown): void => options.onError?.(error);

  const batchSize = options.batchSize ?? SQS_RECEIVE_MAX;
  const concurrency = Math.max(1, options.concurrency ?? 1);
  const budget = new MessageBudget(
    options.maxMessagesInFlight ?? concurrency * batchSize,
    abort.signal,
  );

  /** When a failed receive was last told (see {@link RECEIVE_FAILURE_TOLD_EVERY_MS}). */
  let receiveFailureToldAt = Number.NEGATIVE_INFINITY;
  /** Settles when the worker receiving now has handed its batch over (see takeReceiveTurn). */
  let lastTurn: Promise<void> = Promise.resolve();
  /**
   * Waits for the workers' turn to receive; returns what ends it. One worker at a time waits for
   * `beforeReceive` and the budget, gathers a batch and hands it to the handler, so batches are
   * handed over in the queue's order: two workers gathering at once could each take part of a
   * run of messages and the later part be handed over first (a subject's later event taking its
   * turn first, see SubjectTurns). The handlers still run at once: a turn ends as the handler is
   * called, not when it returns.
   */
  const takeReceiveTurn = async (): Promise<() => void> => {
    const previous = lastTurn;
    let release = () => {};
    lastTurn = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    return release;
  };
  const worker = async (): Promise<void> => {
    let receiveFailures = 0;
    while (!abort.signal.aborted) {
      const endTurn = await takeReceiveTurn();
      // Waited for in the turn, right before the receive: a worker that passed the wait and then
      // waited for its turn would receive though what it waited for had ended since (the bulk
      // lane took batches while a backfill read, against its wait).
      await options.beforeReceive?.(abort.signal);
      const reserved = await budget.take(batchSize);
      if (reserved === 0 || abort.signal.aborted) {
        endTurn();
        budget.give(reserved);
        return;
      }
      if ((await receiveAndSettle(reserved, endTurn)) === 'settled') {
        receiveFailures = 0;
        continue;
      }
      if (abort.signal.aborted) return;
      receiveFailures += 1;
      const waitMs = RECEIVE_RETRY_MS * 2 ** Math.min(10, receiveFailures - 1);
      await clock.sleep(Math.min(RECEIVE_RETRY_MAX_MS, waitMs), abort.signal).catch(() => {});
    }
  };

  /**
   * Receives up to `reserved` messages (taken from the budget), hands them to the handler, ends
   * the turn and waits for the batch to settle; gives the budget back. A function of its own so
   * that no batch outlives it: a worker's frame, suspended while it waits for its next turn and
   * budget, kept its last batch (32 workers a lane: 3,200 of a backfill's envelopes, 14 MB of a
   * heap snapshot, where 800 were in flight).
   */
  const receiveAndSettle = async (
    reserved: number,
    endTurn: () => void,
  ): Promise<'settled' | 'failed'> => {
    let messages: Message[];
    try {
      messages = await receiveBatch(reserved);
    } catch (error) {
      endTurn();
      budget.give(reserved);
      if (
        !abort.signal.aborted &&
        clock.now() - receiveFailureToldAt >= RECEIVE_FAILURE_TOLD_EVERY_MS
      ) {
        receiveFailureToldAt = clock.now();
        report(error);
      }
      return 'failed';
    }
    budget.give(reserved - messages.length);
    try {
      // The handler is called (and takes its turns) before the next worker receives.
      const settled = messages.length > 0 ? invokeAndSettle(messages) : undefined;
      endTurn();
      await settled;
    } finally {
      budget.give(messages.length);
    }
    return 'settled';
  };

  const receive = async (max: number, waitSeconds: number): Promise<Message[]> => {
    const response = await options.client.send(
      new ReceiveMessageCommand({
        QueueUrl: options.queueUrl,
        MaxNumberOfMessages: max,
        WaitTimeSeconds: waitSeconds,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
      { abortSignal: abort.signal },
    );
    return response.Messages ?? [];
  };

  /** At most `limit` messages: the first receive long-polls, the next take what is there. */
  const receiveBatch = async (limit: number): Promise<Message[]> => {
    const messages = await receive(Math.min(limit, SQS_RECEIVE_MAX), options.waitTimeSeconds ?? 20);
    while (messages.length > 0 && messages.length < limit) {
      const more = await receive(Math.min(limit - messages.length, SQS_RECEIVE_MAX), 0);
      messages.push(...more);
      if (more.length < SQS_RECEIVE_MAX) break;
    }
    return messages;
  };

  const invokeAndSettle = async (messages: Message[]): Promise<void> => {
    const records = messages.map((message) => toSqsRecord(message, queueArn, region));
    const failed = await invoke(records);
    const succeeded = records.filter((record) => !failed.has(record.messageId));
    for (let start = 0; start < succeeded.length; start += SQS_RECEIVE_MAX) {
      const part = succeeded.slice(start, start + SQS_RECEIVE_MAX);
      try {
        const response = await options.client.send(
          new DeleteMessageBatchCommand({
            QueueUrl: options.queueUrl,
            Entries: part.map((record, index) => ({
              Id: String(index),
              ReceiptHandle: record.receiptHandle,
            })),
          }),
        );
        if (response.Failed?.length) report(new Error(`${response.Failed.length} deletes failed`));
      } catch (error) {
        report(error);
      }
    }
  };

  /** The message ids to leave on the queue. */
  const invoke = async (records: SQSRecord[]): Promise<Set<string>> => {
    const all = new Set(records.map((record) => record.messageId));
    try {
      const parsed = BatchResponseSchema.safeParse(await options.handler({ Records: records }));
      if (!parsed.success) return all;
      const failed = new Set(parsed.data?.batchItemFailures.map((item) => item.itemIdentifier));
      return [...failed].every((id) => all.has(id)) ? failed : all;
    } catch (error) {
      report(error);
      return all;
    }
  };

  const workers = Array.from({ length: concurrency }, worker);
  const done = Promise.all(workers).then(() => undefined);
  return {
    stop() {
      abort.abort();
      return done;
    },
  };
}

/**
 * The Lambda `SQSRecord` of a received message, field for field as Lambda builds it.
 * Binary attribute values become base64, as in Lambda's JSON event.
 */
export function toSqsRecord(message: Message, queueArn: string, region: string): SQSRecord {
  const attributes = message.Attributes ?? {};
  const messageAttributes: SQSMessageAttributes = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    messageAttributes[name] = {
      stringValue: value.StringValue,
      binaryValue: value.BinaryValue
        ? Buffer.from(value.BinaryValue).toString('base64')
        : undefined,
      stringListValues: [],
      binaryListValues: [],
      dataType: value.DataType ?? 'String',
    };
  }
  const record = {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? '',
      SenderId: attributes.SenderId ?? '',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? '',
      SequenceNumber: attributes.SequenceNumber,
      MessageGroupId: attributes.MessageGroupId,
      MessageDeduplicationId: attributes.MessageDeduplicationId,
      AWSTraceHeader: attributes.AWSTraceHeader,
    },
    messageAttributes,
    md5OfMessageAttributes: message.MD5OfMessageAttributes,
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: region,
  };
  // Read from the message when read: the local queue computes a body's MD5 only then (see
  // withLazyMd5), and the dispatcher never reads it.
  return withMemberOnRead(record, 'md5OfBody', () => message.MD5OfBody ?? '');
}

/** `arn:aws:sqs:<region>:<account>:<name>` from a queue URL `…/<account>/<name>`. */
export function queueArnOf(queueUrl: string, region: string): string {
  const [account = EMULATOR_ACCOUNT_ID, name = ''] = new URL(queueUrl).pathname
    .split('/')
    .filter(Boolean);
  return `arn:aws:sqs:${region}:${account}:${name}`;
}
