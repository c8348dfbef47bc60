import { EventBridgeClient, ListRulesCommand, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type LocalDynamoDb, startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { toSqsRecord } from '../../shared/local/event-source-loop.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { DynamoDbStateStore } from '../../shared/state/dynamodb-state-store.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';
import { pollerEnvironment, setEnvironment } from './support/poller-environment.ts';

/*
 * README, "Store the connection credentials": to rotate, issue new tokens and run
 * `put-secret-value` again. A warm poller container keeps its connections' clients between
 * invocations; the token it was refused must not outlive the secret's new value.
 */

const TABLE = 'poller-rotated-secret';
const SECRET_NAME = 'change-bridge/dev/connections/main';

let restoreEnvironment = () => {};
const secrets = mockClient(SecretsManagerClient);
const bus = mockClient(EventBridgeClient);
let dynamo: LocalDynamoDb;
let sim: RunningSimulator;

beforeAll(async () => {
  dynamo = await startLocalDynamoDb({ transport: 'http' });
  await createStateTable(dynamo.client, TABLE);
  sim = await startSimulator({ seed: 5, size: 'small' });
  bus.on(ListRulesCommand).resolves({ Rules: [] });
  bus.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [] });
  restoreEnvironment = setEnvironment(
    pollerEnvironment(dynamo.endpoint, TABLE, {
      CONNECTION_IDS: 'main',
      CONNECTION_SECRET_PREFIX: 'change-bridge/dev',
      POLL_ENTITIES: 'customer',
      INITIAL_SYNC: 'baseline',
      PUBLISH_EVENT_BUS_NAME: 'bus',
    }),
  );
});
afterAll(async () => {
  secrets.restore();
  bus.restore();
  restoreEnvironment();
  await sim?.close();
  await dynamo?.close();
});

/** The connection secret's value (README), with `accessToken`. */
const secretWith = (accessToken: string) => ({
  SecretString: JSON.stringify({
    baseUrl: sim.url,
    clientToken: sim.tokens.clientToken,
    accessToken,
    client: 'change-bridge test',
  }),
});

/** A poll job of the stream, as the planner sends it and Lambda hands it over. */
const job = (messageId: string) => ({
  Records: [
    toSqsRecord(
      {
        MessageId: messageId,
        ReceiptHandle: 'r',
        Body: JSON.stringify({ connectionId: 'main', streamIds: ['main:customer'] }),
      },
      'arn:aws:sqs:us-east-1:000000000000:poll-jobs',
      'us-east-1',
    ),
  ],
});

const context = (id: string) =>
  ({ getRemainingTimeInMillis: () => 120_000, awsRequestId: id }) as Context;

describe('functions/poller after the connection secret is rotated', () => {
  it('polls with the new token at the next job of the same warm container, once the old one was refused', async () => {
    // The container's own instance of the handler (its clients kept between invocations).
    type Poller = typeof import('../../functions/poller.ts');
    const modulePath = '../../functions/poller.ts?rotated-secret';
    const { handler } = (await import(/* @vite-ignore */ modulePath)) as Poller;
    const store = new DynamoDbStateStore({ client: dynamo.client, tableName: TABLE });
    const quiet = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      // The token was revoked in the hotel system: the connector refuses it, the stream parks.
      secrets.on(GetSecretValueCommand, { SecretId: SECRET_NAME }).resolves(secretWith('revoked'));
      expect(await handler(job('m-1'), context('inv-1'))).toEqual({ batchItemFailures: [] });
      expect((await store.getStream('main:customer'))?.parked).toBe(true);

      // The operator stores the new token (put-secret-value); the next job runs in the same container.
      secrets
        .on(GetSecretValueCommand, { SecretId: SECRET_NAME })
        .resolves(secretWith(sim.tokens.accessToken));
      expect(await handler(job('m-2'), context('inv-2'))).toEqual({ batchItemFailures: [] });
    } finally {
      quiet.mockRestore();
    }
    const state = await store.getStream('main:customer');
    expect(state?.parked).toBe(false);
    expect(state?.initialSyncDone).toBe(true);
  });
});
