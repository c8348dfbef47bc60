import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { systemClock } from '../shared/clock.ts';
import { connectionPages } from '../shared/connections/connection-store.ts';
import { streamsOfConnection } from '../shared/connections/connection-streams.ts';
import { DynamoDbConnectionStore } from '../shared/connections/dynamodb-connection-store.ts';
import { enqueuePollJobs, plannerLookaheadMs } from '../shared/polling/enqueue-poll-jobs.ts';
import {
  type ConnectionJob,
  PLANNER_PAGE_CONNECTIONS,
  type PlannedConnection,
  planConnectionJobs,
  planStoredConnectionJobs,
  type StoredConnectionDue,
} from '../shared/polling/plan-connections.ts';
import { enqueuePurgeJobIfDue } from '../shared/polling/purge-job.ts';
import { DynamoDbStateStore } from '../shared/state/dynamodb-state-store.ts';
import type { StreamState } from '../shared/state/state-store.ts';
import { sanitizingEscapes } from './handler-boundary.ts';
import { type PollLambdaConfig, readPollLambdaEnv } from './poll-env.ts';

/** What a planner container builds from its environment once, on its first invocation. */
interface PlannerDeps {
  config: PollLambdaConfig;
  store: DynamoDbStateStore;
  connectionStore: DynamoDbConnectionStore;
  /** The props' starting set, grouped by connection. */
  propsConnections: PlannedConnection[];
  enqueue: (jobs: readonly ConnectionJob[]) => Promise<void>;
  /** Sends one purge job while streams removed in the background await it. */
  enqueuePurge: () => Promise<boolean>;
}

/**
 * The planner's dependencies from `env`. Called inside the handler wrapper (not at module
 * load), so a malformed variable fails the invocation as a ValidationError naming it, sanitized
 * by sanitizingEscapes, instead of escaping as the runtime's raw `Runtime.ImportModuleError`.
 */
function buildPlannerDeps(env: Record<string, string | undefined>): PlannerDeps {
  const config = readPollLambdaEnv(env, systemClock.now());
  const dynamo = new DynamoDBClient({});
  const sqs = new SQSClient({});
  const store = new DynamoDbStateStore({ client: dynamo, tableName: config.tableName });
  return {
    config,
    store,
    connectionStore: new DynamoDbConnectionStore({ client: dynamo, tableName: config.tableName }),
    propsConnections: Object.keys(config.secretIds).map((id) => ({
      connectionId: id,
      definitions: config.definitions.filter((d) => d.connectionId === id),
    })),
    enqueue: (jobs) => enqueuePollJobs(jobs, { client: sqs, queueUrl: config.pollJobQueueUrl }),
    enqueuePurge: () =>
      enqueuePurgeJobIfDue(store, { client: sqs, queueUrl: config.pollJobQueueUrl }),
  };
}

/** Built on the first invocation and kept while the container is warm. */
let deps: PlannerDeps | undefined;

/** The stream states of the props' starting set (at most 20 connections), read one by one. */
async function propsStreamStates({
  config,
  store,
}: Pick<PlannerDeps, 'config' | 'store'>): Promise<Map<string, StreamState>> {
  const states = await Promise.all(
    config.definitions.map((definition) => store.getStream(definition.streamId)),
  );
  return new Map(
    states.filter((state) => state !== undefined).map((state) => [state.streamId, state]),
  );
}

/**
 * Scheduled planner: one poll job per connection with due streams (jobs scale with
 * connections, not streams). Stored connections are read page by page and planned from their
 * own `nextDueAt`, which the poller keeps, so 10,000 connections cost 10,000 item reads and
 * 1,000 SendMessageBatch calls of 10 per run (ten at a time, most overdue first, refused
 * entries sent again), not a read of every stream state. A stream
 * already being polled is skipped by its lease, so an overlapping schedule never polls it twice.
 * While streams removed in the background await their purge, each run also sends one purge job.
 */
const plan = async (): Promise<{ enqueued: number; connections: number }> => {
  // Inside the handler wrapper, once per container: see buildPlannerDeps.
  deps ??= buildPlannerDeps(process.env);
  const { config, connectionStore, propsConnections, enqueue } = deps;
  const now = systemClock.now();
  // Up to the next run (the schedule's rate, pollRateMinutes); each job waits for its slot.
  const lookaheadMs = plannerLookaheadMs(config.plannerRateMs ?? config.settings.intervalMs);
  const propsJobs = planConnectionJobs(
    propsConnections,
    await propsStreamStates(deps),
    now,
    lookaheadMs,
  );
  // Every page first, so the jobs go out most overdue first across the whole listing; a
  // listing that fails part way still sends the jobs of the pages it read, then fails the run.
  const stored: StoredConnectionDue[] = [];
  let listingFailure: { error: unknown } | undefined;
  try {
    // Eventually consistent: half the read units. A write of the last second may not show yet:
    // a connection just added is planned next run, one just removed or disabled once more (its
    // poller reads it strongly consistent and skips the job), a stale nextDueAt plans by the
    // value before (a job whose streams the poller's due checks skip, or one run late).
    const pages = connectionPages(connectionStore, PLANNER_PAGE_CONNECTIONS, { consistent: false });
    for await (const page of pages) {
      for (const connection of page) {
        if (config.secretIds[connection.id]) continue;
        stored.push({
          connectionId: connection.id,
          enabled: connection.enabled,
          ...(connection.nextDueAt !== undefined ? { nextDueAt: connection.nextDueAt } : {}),
          streamIds: streamsOfConnection(connection, config.settings, config.tracked).map(
            (d) => d.streamId,
          ),
        });
      }
    }
  } catch (error) {
    listingFailure = { error };
  }
  const storedJobs = planStoredConnectionJobs(stored, now, lookaheadMs);
  await enqueue([...propsJobs, ...storedJobs]);
  // Streams the admin API removed in the background: a poller deletes what they left.
  const purgeFailure = await deps.enqueuePurge().then(
    () => undefined,
    (error: unknown) => ({ error }),
  );
  if (listingFailure) throw listingFailure.error;
  if (purgeFailure) throw purgeFailure.error;
  const enqueued = propsJobs.length + storedJobs.length;
  const connections = propsConnections.length + stored.length;
  return { enqueued, connections };
};

/** The Lambda entry point: {@link plan}, with what escapes it sanitized (see sanitizingEscapes). */
export const handler = sanitizingEscapes(plan);
