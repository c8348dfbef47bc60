import {
  ConditionalCheckFailedException,
  DynamoDBServiceException,
  ResourceNotFoundException,
} from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactGetCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type LocalDynamoDb, startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { type DocumentClient, documentClientOf } from '../../shared/state/document-client.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';

const TABLE = 'direct';
const TRANSLATE = { marshallOptions: { removeUndefinedValues: true } };

/** An item with every kind of value the stores write: nested maps, lists, sets, bytes, null. */
const item = (pk: string, sk: string) => ({
  pk,
  sk,
  version: 3,
  ratio: 0.25,
  doc: {
    name: 'Ada',
    tags: ['a', 'b'],
    nested: { deep: [1, { x: null, bin: new Uint8Array([7, 8]) }] },
    empty: '',
  },
  body: new Uint8Array([0, 1, 2, 250, 251, 255]),
  packed: Buffer.from('deflated bytes'),
  blobs: new Set([Buffer.from('one'), new Uint8Array([2])]),
  ids: new Set(['x', 'y']),
  flag: true,
  gone: undefined,
});

type Keyed = { pk: string; sk: string };

/**
 * Everything an output holds but its request id (different on every call), a BatchGet's items
 * in key order (the order of a BatchGet's answer is not defined).
 */
function comparable(output: object): object {
  const { $metadata: _metadata, ...rest } = output as { $metadata: unknown; Responses?: object };
  if (!rest.Responses) return rest;
  const byKey = (a: Keyed, b: Keyed) => `${a.pk}${a.sk}`.localeCompare(`${b.pk}${b.sk}`);
  const responses = Object.entries(rest.Responses as Record<string, Keyed[]>).map(
    ([table, items]) => [table, [...items].sort(byKey)],
  );
  return { ...rest, Responses: Object.fromEntries(responses) };
}

describe.each(['in-process', 'thread'] as const)('the direct document client (%s)', (transport) => {
  let db: LocalDynamoDb;
  let direct: DocumentClient;
  let sdk: DynamoDBDocumentClient;
  /** Requests that went through the SDK client's middleware. */
  let sdkRequests = 0;

  beforeAll(async () => {
    db = await startLocalDynamoDb({ transport });
    await createStateTable(db.client, TABLE);
    db.client.middlewareStack.add(
      (next) => (args) => {
        sdkRequests++;
        return next(args);
      },
      { step: 'initialize', name: 'countSdkRequests' },
    );
    direct = documentClientOf(db.client, TRANSLATE);
    sdk = DynamoDBDocumentClient.from(db.client, TRANSLATE);
  });

  afterAll(() => db.close());

  it('answers what the SDK answers, without the SDK, for every command the stores send', async () => {
    const before = sdkRequests;
    await direct.send(new PutCommand({ TableName: TABLE, Item: item('P#1', 'A') }));
    await direct.send(
      new BatchWriteCommand({
        RequestItems: {
          [TABLE]: [
            { PutRequest: { Item: item('P#1', 'B') } },
            { PutRequest: { Item: item('P#2', 'A') } },
          ],
        },
      }),
    );
    expect(sdkRequests).toBe(before);
    const commands = [
      () => new GetCommand({ TableName: TABLE, Key: { pk: 'P#1', sk: 'A' }, ConsistentRead: true }),
      () =>
        new QueryCommand({
          TableName: TABLE,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': 'P#1' },
          Limit: 1,
        }),
      () => new ScanCommand({ TableName: TABLE }),
      () =>
        new BatchGetCommand({
          RequestItems: {
            [TABLE]: {
              Keys: [
                { pk: 'P#1', sk: 'A' },
                { pk: 'P#2', sk: 'A' },
              ],
            },
          },
        }),
    ];
    for (const command of commands) {
      const answered = await direct.send(command() as never);
      expect(comparable(answered)).toEqual(comparable(await sdk.send(command() as never)));
    }
    const got = (await direct.send(commands[0]!() as GetCommand)).Item!;
    expect(got.body).toEqual(new Uint8Array([0, 1, 2, 250, 251, 255]));
    expect(got.ids).toEqual(new Set(['x', 'y']));
    expect(got).not.toHaveProperty('gone');
    const query = await direct.send(commands[1]!() as QueryCommand);
    expect(query.LastEvaluatedKey).toEqual({ pk: 'P#1', sk: 'A' });

    const updated = await direct.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: { pk: 'P#2', sk: 'A' },
        UpdateExpression: 'ADD version :one',
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'ALL_NEW',
      }),
    );
    expect(updated.Attributes).toMatchObject({ version: 4, doc: { name: 'Ada' } });
    const deleted = await direct.send(
      new DeleteCommand({ TableName: TABLE, Key: { pk: 'P#2', sk: 'A' }, ReturnValues: 'ALL_OLD' }),
    );
    expect(deleted.Attributes).toMatchObject({ version: 4 });
    expect(sdkRequests).toBe(before + commands.length);
  });

  it('writes bytes as base64 without Buffer#toJSON (an array of numbers per byte)', async () => {
    const toJSON = vi.spyOn(Buffer.prototype, 'toJSON');
    try {
      await direct.send(new PutCommand({ TableName: TABLE, Item: item('P#3', 'A') }));
      expect(toJSON).not.toHaveBeenCalled();
    } finally {
      toJSON.mockRestore();
    }
    const got = await direct.send(
      new GetCommand({ TableName: TABLE, Key: { pk: 'P#3', sk: 'A' } }),
    );
    expect(Buffer.from(got.Item!.packed as Uint8Array).toString()).toBe('deflated bytes');
    expect(got.Item!.blobs).toEqual(
      new Set([new Uint8Array(Buffer.from('one')), new Uint8Array([2])]),
    );
  });

  it("fails as the SDK does: dynalite's errors as the SDK's exception classes", async () => {
    const conditional = () =>
      new PutCommand({
        TableName: TABLE,
        Item: item('P#1', 'A'),
        ConditionExpression: 'attribute_not_exists(pk)',
      });
    const failed = await direct.send(conditional()).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(ConditionalCheckFailedException);
    expect(failed).toMatchObject({
      name: 'ConditionalCheckFailedException',
      $fault: 'client',
      message: ((await sdk.send(conditional()).catch((error: unknown) => error)) as Error).message,
    });

    const missing = await direct
      .send(new GetCommand({ TableName: 'absent', Key: { pk: 'x', sk: 'y' } }))
      .catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(ResourceNotFoundException);

    const invalid = await direct
      .send(new GetCommand({ TableName: TABLE, Key: { pk: 'x' } }))
      .catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(DynamoDBServiceException);
    expect(invalid).toMatchObject({ name: 'ValidationException', $fault: 'client' });
  });

  it('hands any other command to the SDK', async () => {
    const before = sdkRequests;
    // dynalite has no transactions: the SDK's request reaches it and its answer is the SDK's error.
    await expect(
      direct.send(
        new TransactGetCommand({
          TransactItems: [{ Get: { TableName: TABLE, Key: { pk: 'P#1', sk: 'A' } } }],
        }),
      ),
    ).rejects.toThrow();
    expect(sdkRequests).toBe(before + 1);
  });
});

describe('the direct document client of a closed local store', () => {
  it('fails the call as a refused connection would, instead of the process', async () => {
    const db = await startLocalDynamoDb({ transport: 'in-process' });
    await createStateTable(db.client, TABLE);
    const direct = documentClientOf(db.client, TRANSLATE);
    await direct.send(new PutCommand({ TableName: TABLE, Item: { pk: 'P#9', sk: 'A' } }));
    await db.close();

    await expect(
      direct.send(new GetCommand({ TableName: TABLE, Key: { pk: 'P#9', sk: 'A' } })),
    ).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
