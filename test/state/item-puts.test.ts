import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BridgeError } from '../../shared/errors.ts';
import { DynamoDbStateStore } from '../../shared/state/dynamodb-state-store.ts';
import { type ItemPuts, itemPutsOf, routeItemPuts } from '../../shared/state/item-puts.ts';
import { WebhookTable } from '../../shared/webhooks/dynamodb-table-access.ts';
import { snapshot } from './state-store.contract.ts';

const TABLE = 'state';
const documentMock = mockClient(DynamoDBDocumentClient);
afterAll(() => documentMock.restore());
afterEach(() => documentMock.reset());

type Item = Record<string, unknown>;
/** Items the route leaves: none, all of them. */
const takesAll = async () => [];
const leavesAll = async (items: readonly Item[]) => items;

/** A client whose item puts answer with `answer`, and what they were handed. */
function clientWithPuts(answer: (items: readonly Item[]) => Promise<readonly Item[]>) {
  const client = new DynamoDBClient({ region: 'us-east-1' });
  const handed: Array<{ tableName: string; items: readonly Record<string, unknown>[] }> = [];
  const puts: ItemPuts = {
    put: (tableName, items) => {
      handed.push({ tableName, items });
      return answer(items);
    },
  };
  routeItemPuts(client, puts);
  return { client, handed };
}

/** A state store over a client whose item puts answer with `answer`, and what they were handed. */
function storeWithPuts(answer: (items: readonly Item[]) => Promise<readonly Item[]>) {
  const { client, handed } = clientWithPuts(answer);
  return { store: new DynamoDbStateStore({ client, tableName: TABLE }), handed };
}

const sentItems = () =>
  documentMock
    .commandCalls(BatchWriteCommand)
    .flatMap((call) => call.args[0].input.RequestItems?.[TABLE] ?? [])
    .map((request) => request.PutRequest?.Item);

describe('snapshot puts of a store that has its own route for them', () => {
  it('are not routed for a client nobody routed (AWS)', () => {
    expect(itemPutsOf(new DynamoDBClient({ region: 'us-east-1' }))).toBeUndefined();
  });

  it('go through the route, as the items BatchWriteItem would carry, and send no request', async () => {
    const { store, handed } = storeWithPuts(takesAll);
    documentMock.on(BatchWriteCommand).resolves({ UnprocessedItems: {} });
    await store.putSnapshots('main:customer', [snapshot('a'), snapshot('b')]);
    expect(sentItems()).toEqual([]);
    expect(handed).toHaveLength(1);
    expect(handed[0]!.tableName).toBe(TABLE);
    expect(handed[0]!.items.map((item) => [item.pk, item.sk, item.hash])).toEqual([
      ['STREAM#main:customer', 'SNAP#a', 'hash-a'],
      ['STREAM#main:customer', 'SNAP#b', 'hash-b'],
    ]);
  });

  it('go as BatchWriteItem requests, the same items, where the route does not take them', async () => {
    const { store, handed } = storeWithPuts(leavesAll);
    documentMock.on(BatchWriteCommand).resolves({ UnprocessedItems: {} });
    await store.putSnapshots('main:customer', [snapshot('a'), snapshot('b')]);
    expect(sentItems()).toEqual(handed[0]!.items);
  });

  it('send as BatchWriteItem requests only the items the route left', async () => {
    const { store, handed } = storeWithPuts(async (items) => items.slice(1));
    documentMock.on(BatchWriteCommand).resolves({ UnprocessedItems: {} });
    await store.putSnapshots('main:customer', [snapshot('a'), snapshot('b'), snapshot('c')]);
    expect(sentItems()).toEqual(handed[0]!.items.slice(1));
  });

  it('fail as a BatchWriteItem would, retryable unless the request was wrong', async () => {
    const { store } = storeWithPuts(async () => {
      throw Object.assign(new Error('IO error: No space left on device'), {
        name: 'InternalServerError',
      });
    });
    const failure = await store.putSnapshots('main:customer', [snapshot('a')]).catch((e) => e);
    expect(failure).toBeInstanceOf(BridgeError);
    expect(failure).toMatchObject({
      message: expect.stringContaining('DynamoDB BatchWriteItem on table state failed'),
      retryable: true,
    });
    expect(sentItems()).toEqual([]);
  });
});

describe("the webhook store's unconditional batch puts (events and their deliveries)", () => {
  const items = [
    { pk: 'EVENT#e1', sk: 'EVENT', body: '{}' },
    { pk: 'DELIVERY#d1', sk: 'DELIVERY', doc: { id: 'd1' } },
  ];

  it('go through the route where it takes them, as BatchWriteItem requests where not', async () => {
    documentMock.on(BatchWriteCommand).resolves({ UnprocessedItems: {} });
    const taken = clientWithPuts(takesAll);
    await WebhookTable.on(taken.client, TABLE).batchPut(items);
    expect(taken.handed).toEqual([{ tableName: TABLE, items }]);
    expect(sentItems()).toEqual([]);

    const refused = clientWithPuts(leavesAll);
    await WebhookTable.on(refused.client, TABLE).batchPut(items);
    expect(refused.handed).toHaveLength(1);
    expect(sentItems()).toEqual(items);
  });
});
