import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { systemClock } from '../shared/clock.ts';
import { connectionPages } from '../shared/connections/connection-store.ts';
import { streamsOfConnection } from '../shared/connections/connection-streams.ts';
import { DynamoDbConnectionStore } from '../shared/connections/dynamodb-connection-store.ts';
import {
  type ConnectionJob,
  type PlannedConnection,
  planConnectionJobs,
} from '../shared/polling/plan-connections.ts';
import type { PollJob } from '../shared/polling/poll-job.ts';
import { chunk } from '../shared/polling/strategies/paged-records.ts';
import { DynamoDbStateStore } from '../shared/state/dynamodb-state-store.ts';
import { readPollLambdaEnv } from './poll-env.ts';

/** SendMessageBatch takes at most 10 entries. */
const SQS_BATCH_MAX_ENTRIES = 10;
/** SQS delays a message by at most 15 minutes. */
const SQS_MAX_DELAY_MS = 900_000;
/** Connections read per page of the connection store. */
const CONNECTION_PAGE_SIZE = 500;

const config = readPollLambdaEnv(process.env, systemClock.now());
const dynamo = new DynamoDBClient({});
const store = new DynamoDbStateStore({ client: dynamo, tableName: config.tableName });
const connectionStore = new DynamoDbConnectionStore({
  client: dynamo,
  tableName: config.tableName,
});
const sqs = new SQSClient({});

/** The props' starting set, grouped by connection. */
const propsConnections: PlannedConnection[] = Object.keys(config.secretArns).map((id) => ({
  connectionId: id,
  definitions: config.definitions.filter((d) => d.connectionId === id),
}));

async function enqueue(jobs: readonly ConnectionJob[]): Promise<void> {
  for (const batch of chunk(jobs, SQS_BATCH_MAX_ENTRIES)) {
    const result = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: config.pollJobQueueUrl,
        Entries: batch.map((job, index) => ({
          Id: String(index),
          MessageBody: JSON.stringify({
            connectionId: job.connectionId,
            streamIds: job.streamIds,
          } satisfies PollJob),
          DelaySeconds: Math.ceil(Math.min(job.delayMs, SQS_MAX_DELAY_MS) / 1000),
        })),
      }),
    );
    if (result.Failed?.length)
      throw new Error(`could not enqueue ${result.Failed.length} poll jobs`);
  }
}

/**
 * Scheduled planner: one poll job per connection with due streams (jobs scale with
 * connections, not streams), read page by page from the connection store and sent in
 * SendMessageBatch calls of 10. A stream already being polled is skipped by its lease, so an
 * overlapping schedule never polls it twice.
 */
export const handler = async (): Promise<{ enqueued: number; connections: number }> => {
  const states = new Map((await store.listStreams()).map((state) => [state.streamId, state]));
  const now = systemClock.now();
  // One schedule period ahead (POLL_INTERVAL is the schedule's rate); each job waits for its slot.
  const lookaheadMs = Math.min(config.settings.intervalMs ?? 60_000, SQS_MAX_DELAY_MS);
  let enqueued = 0;
  let connections = propsConnections.length;
  const propsJobs = planConnectionJobs(propsConnections, states, now, lookaheadMs);
  await enqueue(propsJobs);
  enqueued += propsJobs.length;
  for await (const page of connectionPages(connectionStore, CONNECTION_PAGE_SIZE)) {
    const planned = page
      .filter((connection) => connection.enabled && !config.secretArns[connection.id])
      .map((connection) => ({
        connectionId: connection.id,
        definitions: streamsOfConnection(connection, config.settings),
      }));
    connections += planned.length;
    const jobs = planConnectionJobs(planned, states, now, lookaheadMs);
    await enqueue(jobs);
    enqueued += jobs.length;
  }
  return { enqueued, connections };
};
