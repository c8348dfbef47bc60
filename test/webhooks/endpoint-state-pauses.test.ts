import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { LOCAL_CREDENTIALS } from '../../shared/local/local-credentials.ts';
import { DynamoDbWebhookStore } from '../../shared/webhooks/dynamodb-store.ts';
import { applyOutcome } from '../../shared/webhooks/endpoint-health.ts';
import { foldEndpointState } from '../../shared/webhooks/endpoint-state-fold.ts';
import { type EndpointState, freshEndpointState } from '../../shared/webhooks/store.ts';
import { type LocalTable, startLocalTable } from './support/local-dynamodb.ts';

let table: LocalTable;
beforeAll(async () => {
  table = await startLocalTable('endpoint-state-pauses');
});
afterAll(() => table.stop());

/**
 * A client on which another process stores the endpoint's state, a failure counted and a pause
 * a second later than the last, just before each of the first `races` writes of that state:
 * each of those writes then loses.
 */
async function clientRacedByOtherWriters(base: EndpointState, races: number) {
  let pause = 10_000;
  let version = 0;
  const client = new DynamoDBClient({
    region: 'us-east-1',
    endpoint: await table.client.config.endpoint?.(),
    credentials: LOCAL_CREDENTIALS,
  });
  client.middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as { TableName?: string; Item?: { sk?: unknown } };
      const sk = input.Item?.sk;
      if (
        (sk === 'STATE' || (sk as { S?: string } | undefined)?.S === 'STATE') &&
        version < races
      ) {
        pause += 1_000;
        version += 1;
        const doc = { ...base, consecutiveFailures: version, pausedUntil: pause, version };
        await table.client.send(
          new PutItemCommand({
            TableName: input.TableName,
            Item: marshall({ pk: `ENDPOINT#${base.subscriptionId}`, sk: 'STATE', doc }),
          }),
        );
      }
      return next(args);
    },
    { step: 'initialize', name: 'otherWriterBeforeEachWrite' },
  );
  cleanupClients.push(client);
  return client;
}

const cleanupClients: DynamoDBClient[] = [];
afterAll(() => {
  for (const client of cleanupClients) client.destroy();
});

/** A failure with a pause until `pauseUntil`, folded into a state as the dispatcher does. */
const failWithPause = (pauseUntil: number) => (state: EndpointState) =>
  applyOutcome(state, { kind: 'retry', at: pauseUntil, pauseUntil }, 0, {
    failingAfterFailures: 100,
    disableAfterMs: Number.MAX_SAFE_INTEGER,
  });

/**
 * A failure with a pause until 5,000 folded into `subscriptionId`'s state, read as none stored,
 * while another process writes the state before each of the fold's first `races` writes.
 */
async function failureFoldedRacedBy(subscriptionId: string, races: number) {
  const base = { subscriptionId, consecutiveFailures: 0, failingNotified: false };
  const client = await clientRacedByOtherWriters(base, races);
  const store = new DynamoDbWebhookStore({ client, tableName: table.tableName, clock });
  return foldEndpointState(store, freshEndpointState(subscriptionId), failWithPause(5_000));
}

describe('an endpoint state folded while other processes write it', () => {
  it('folds its failure onto what another process stored meanwhile: both count, the later pause stays', async () => {
    // This process read no state; the other stores a failure with a pause until 11,000 first.
    const folded = await failureFoldedRacedBy('sub_once', 1);
    expect(folded).toMatchObject({
      written: true,
      state: { consecutiveFailures: 2, pausedUntil: 11_000, version: 2 },
    });
    expect(await reader().getEndpointState('sub_once')).toEqual(folded.state);
  });

  it('gives up after a few lost writes, leaving the stored state and its later pause standing', async () => {
    const folded = await failureFoldedRacedBy('sub_raced', 100);
    // Five writes lost, each to a pause a second later; the last fold is of the fourth one read.
    expect(folded).toMatchObject({
      written: false,
      state: { consecutiveFailures: 5, pausedUntil: 14_000 },
    });
    expect(await reader().getEndpointState('sub_raced')).toMatchObject({
      consecutiveFailures: 5,
      pausedUntil: 15_000,
      version: 5,
    });
  });
});

const clock = new ManualClock(0);
const reader = () =>
  new DynamoDbWebhookStore({ client: table.client, tableName: table.tableName, clock });
