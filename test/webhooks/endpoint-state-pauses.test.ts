import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { DynamoDbWebhookStore } from '../../shared/webhooks/dynamodb-store.ts';
import type { EndpointState } from '../../shared/webhooks/store.ts';
import { type LocalTable, startLocalTable } from './support/local-dynamodb.ts';

let table: LocalTable;
beforeAll(async () => {
  table = await startLocalTable('endpoint-state-pauses');
});
afterAll(() => table.stop());

/**
 * A client on which another process stores the endpoint's state with a pause a second later
 * than the last, just before each write of that state: every conditional write then loses.
 */
async function clientRacedByLaterPauses(base: EndpointState) {
  let pause = 10_000;
  const client = new DynamoDBClient({
    region: 'us-east-1',
    endpoint: await table.client.config.endpoint?.(),
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  client.middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as { TableName?: string; Item?: { sk?: unknown } };
      const sk = input.Item?.sk;
      if (sk === 'STATE' || (sk as { S?: string } | undefined)?.S === 'STATE') {
        pause += 1_000;
        const doc = { ...base, consecutiveFailures: 9, pausedUntil: pause };
        await table.client.send(
          new PutItemCommand({
            TableName: input.TableName,
            Item: marshall({ pk: `ENDPOINT#${base.subscriptionId}`, sk: 'STATE', doc }),
          }),
        );
      }
      return next(args);
    },
    { step: 'initialize', name: 'laterPauseBeforeEachWrite' },
  );
  cleanupClients.push(client);
  return { client, lastPause: () => pause };
}

const cleanupClients: DynamoDBClient[] = [];
afterAll(() => {
  for (const client of cleanupClients) client.destroy();
});

describe('an endpoint state written while later pauses keep landing', () => {
  it('gives up after a few tries with the last pause it read, leaving the stored one standing', async () => {
    const base = { subscriptionId: 'sub_raced', consecutiveFailures: 0, failingNotified: false };
    const { client: raced, lastPause } = await clientRacedByLaterPauses(base);
    const clock = new ManualClock(0);
    const store = new DynamoDbWebhookStore({ client: raced, tableName: table.tableName, clock });
    const returned = await store.putEndpointState(
      { ...base, consecutiveFailures: 1, pausedUntil: 5_000 },
      { keepLaterPause: true },
    );
    // Five conditional writes lost, each to a pause a second later; the last one read is joined.
    expect(lastPause()).toBe(15_000);
    expect(returned).toMatchObject({ consecutiveFailures: 1, pausedUntil: 15_000 });
    const reader = new DynamoDbWebhookStore({
      client: table.client,
      tableName: table.tableName,
      clock,
    });
    expect((await reader.getEndpointState('sub_raced'))?.pausedUntil).toBe(15_000);
  });
});
