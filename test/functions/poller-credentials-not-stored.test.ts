import { EventBridgeClient, ListRulesCommand, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { DecryptCommand, KMSClient } from '@aws-sdk/client-kms';
import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import type { Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DynamoDbConnectionStore } from '../../shared/connections/dynamodb-connection-store.ts';
import { type LocalDynamoDb, startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { toSqsRecord } from '../../shared/local/event-source-loop.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { DynamoDbStateStore } from '../../shared/state/dynamodb-state-store.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';
import { pollerEnvironment, setEnvironment } from './support/poller-environment.ts';

/*
 * README, "Store the connection credentials": the stack creates each connection's secret empty.
 * Until the operator stores the credentials JSON, the connection's streams say so (`streams
 * list`), its poll jobs end without failing (no poll-job dead letter a minute), and the first job
 * after put-secret-value polls.
 */

const TABLE = 'poller-credentials-not-stored';
const SECRET_NAME = 'change-bridge/dev/connections/main';
const DEPLOYMENT_SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:deployment';
const STREAMS = ['main:customer', 'main:resource'];

let restoreEnvironment = () => {};
const secrets = mockClient(SecretsManagerClient);
const bus = mockClient(EventBridgeClient);
const kms = mockClient(KMSClient);
let dynamo: LocalDynamoDb;
let sim: RunningSimulator;

beforeAll(async () => {
  dynamo = await startLocalDynamoDb({ transport: 'http' });
  await createStateTable(dynamo.client, TABLE);
  sim = await startSimulator({ seed: 7, size: 'small' });
  bus.on(ListRulesCommand).resolves({ Rules: [] });
  bus.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [] });
  restoreEnvironment = setEnvironment(
    pollerEnvironment(dynamo.endpoint, TABLE, {
      CONNECTION_IDS: 'main',
      CONNECTION_SECRET_PREFIX: 'change-bridge/dev',
      DEPLOYMENT_SECRET_ARN,
      CONNECTION_TOKEN_KEY_ARN: 'arn:aws:kms:us-east-1:000000000000:key/bridge-tokens',
      POLL_ENTITIES: 'customer,resource',
      INITIAL_SYNC: 'baseline',
      PUBLISH_EVENT_BUS_NAME: 'bus',
    }),
  );
});
afterAll(async () => {
  secrets.restore();
  bus.restore();
  kms.restore();
  restoreEnvironment();
  await sim?.close();
  await dynamo?.close();
});

/** What GetSecretValue answers in AWS for a secret with no value yet. */
const noValueYet = () =>
  new ResourceNotFoundException({
    message: "Secrets Manager can't find the specified secret value for staging label: AWSCURRENT",
    $metadata: { httpStatusCode: 400 },
  });

/** The handler's module of its own (its clients kept between invocations, as in a warm container). */
async function pollerHandler() {
  type Poller = typeof import('../../functions/poller.ts');
  const modulePath = '../../functions/poller.ts?credentials-not-stored';
  return ((await import(/* @vite-ignore */ modulePath)) as Poller).handler;
}

/** A poll job of the connection's streams, as the planner sends it and Lambda hands it over. */
const job = (messageId: string, connectionId = 'main', streamIds = STREAMS) => ({
  Records: [
    toSqsRecord(
      {
        MessageId: messageId,
        ReceiptHandle: 'r',
        Body: JSON.stringify({ connectionId, streamIds }),
      },
      'arn:aws:sqs:us-east-1:000000000000:poll-jobs',
      'us-east-1',
    ),
  ],
});

const context = (id: string) =>
  ({ getRemainingTimeInMillis: () => 120_000, awsRequestId: id }) as Context;

describe('functions/poller with a connection secret the stack created empty', () => {
  it('marks the streams "credentials not stored yet" without failing the job, and polls once the secret holds a value', async () => {
    const handler = await pollerHandler();
    const store = new DynamoDbStateStore({ client: dynamo.client, tableName: TABLE });
    const printed: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
      printed.push(String(chunk));
      return true;
    });
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      secrets.on(GetSecretValueCommand, { SecretId: SECRET_NAME }).rejects(noValueYet());
      const before = Date.now();
      // Not redelivered: three failed receives each would put a dead letter a planner run.
      expect(await handler(job('m-1'), context('inv-1'))).toEqual({ batchItemFailures: [] });
      for (const streamId of STREAMS) {
        const state = await store.getStream(streamId);
        expect(state?.parked).toBe(true);
        expect(state?.parkedReason).toBe(
          'credentials not stored yet: the connection secret change-bridge/dev/connections/main has no value: store the credentials JSON',
        );
        // Planned again at its next slot (POLL_INTERVAL), not every planner run at once.
        expect(state!.nextDueAt).toBeGreaterThan(before);
      }
      // The parked streams alarm tells the operator, as for refused credentials.
      expect(printed.join('')).toContain('"StreamsParked":2');

      // put-secret-value; the next job runs in the same warm container.
      secrets.on(GetSecretValueCommand, { SecretId: SECRET_NAME }).resolves({
        SecretString: JSON.stringify({
          baseUrl: sim.url,
          clientToken: sim.tokens.clientToken,
          accessToken: sim.tokens.accessToken,
          client: 'change-bridge test',
        }),
      });
      expect(await handler(job('m-2'), context('inv-2'))).toEqual({ batchItemFailures: [] });
    } finally {
      vi.restoreAllMocks();
    }
    for (const streamId of STREAMS) {
      const state = await store.getStream(streamId);
      expect(state?.parked).toBe(false);
      expect(state?.parkedReason).toBeNull();
      expect(state?.initialSyncDone).toBe(true);
    }
  });

  it("marks a stored connection's streams the same while the deployment secret holds no value, and plans it at their next slot", async () => {
    const handler = await pollerHandler();
    secrets.on(GetSecretValueCommand, { SecretId: DEPLOYMENT_SECRET_ARN }).rejects(noValueYet());
    // The token is never opened meanwhile: its answer does not matter.
    kms.on(DecryptCommand).callsFake(() => new Promise(() => undefined));
    const connections = new DynamoDbConnectionStore({ client: dynamo.client, tableName: TABLE });
    await connections.create({
      id: 'hotel-1',
      enabled: true,
      createdAt: '2026-11-01T00:00:00.000Z',
      entities: ['customer', 'resource'],
      accessToken: {
        v: 1,
        wrappedKey: 'd3JhcHBlZA==',
        iv: 'aXY=',
        tag: 'dGFn',
        ciphertext: 'Y3Q=',
      },
    });
    const streamIds = ['hotel-1:customer', 'hotel-1:resource'];
    const before = Date.now();
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(await handler(job('m-3', 'hotel-1', streamIds), context('inv-3'))).toEqual({
        batchItemFailures: [],
      });
    } finally {
      vi.restoreAllMocks();
    }
    const store = new DynamoDbStateStore({ client: dynamo.client, tableName: TABLE });
    for (const streamId of streamIds) {
      const state = await store.getStream(streamId);
      expect(state?.parked).toBe(true);
      expect(state?.parkedReason).toBe(
        `credentials not stored yet: the deployment secret ${DEPLOYMENT_SECRET_ARN} has no value: store the credentials JSON`,
      );
    }
    expect((await connections.get('hotel-1'))?.nextDueAt).toBeGreaterThan(before);
  });
});
