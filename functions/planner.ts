import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { systemClock } from '../shared/clock.ts';
import type { PollJob } from '../shared/polling/poll-job.ts';
import { dueStreams } from '../shared/polling/schedule.ts';
import { chunk } from '../shared/polling/strategies/paged-records.ts';
import { DynamoDbStateStore } from '../shared/state/dynamodb-state-store.ts';
import { readPollLambdaEnv } from './poll-env.ts';

/** SendMessageBatch takes at most 10 entries. */
const SQS_BATCH_MAX_ENTRIES = 10;
/** SQS delays a message by at most 15 minutes. */
const SQS_MAX_DELAY_MS = 900_000;

const config = readPollLambdaEnv(process.env, systemClock.now());
const store = new DynamoDbStateStore({
  client: new DynamoDBClient({}),
  tableName: config.tableName,
});
const sqs = new SQSClient({});

/**
 * Scheduled planner: finds due streams and enqueues one poll job each. A stream already being
 * polled is skipped by its poller's lease, so an overlapping schedule never runs it twice.
 */
export const handler = async (): Promise<{ enqueued: number }> => {
  const states = new Map((await store.listStreams()).map((state) => [state.streamId, state]));
  const now = systemClock.now();
  // One schedule period ahead (POLL_INTERVAL is the schedule's rate); each job waits for its slot.
  const lookaheadMs = Math.min(config.settings.intervalMs ?? 60_000, SQS_MAX_DELAY_MS);
  const due = dueStreams(config.definitions, states, now, lookaheadMs);
  for (const batch of chunk(due, SQS_BATCH_MAX_ENTRIES)) {
    const result = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: config.pollJobQueueUrl,
        Entries: batch.map((definition, index) => ({
          Id: String(index),
          MessageBody: JSON.stringify({ streamId: definition.streamId } satisfies PollJob),
          DelaySeconds: Math.ceil(
            Math.max(0, (states.get(definition.streamId)?.nextDueAt ?? now) - now) / 1000,
          ),
        })),
      }),
    );
    if (result.Failed?.length)
      throw new Error(`could not enqueue ${result.Failed.length} poll jobs`);
  }
  return { enqueued: due.length };
};
