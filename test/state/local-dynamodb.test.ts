import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  GetItemCommand,
  ListTablesCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { type LocalDynamoDbTransport, startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { LOCAL_CREDENTIALS } from '../../shared/local/local-credentials.ts';
import { DynamoDbStateStore } from '../../shared/state/dynamodb-state-store.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';
import { snapshot, streamState } from './state-store.contract.ts';

const directories: string[] = [];

afterEach(async () => {
  await Promise.all(directories.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

const TRANSPORTS: readonly LocalDynamoDbTransport[] = ['in-process', 'thread', 'http'];

describe.each(TRANSPORTS)('startLocalDynamoDb, client %s', (transport) => {
  it('serves DynamoDB on a loopback port and stops on close', async () => {
    const dynamo = await startLocalDynamoDb({ transport });
    expect(dynamo.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await dynamo.client.send(new ListTablesCommand({}))).toMatchObject({ TableNames: [] });

    await dynamo.close();
    await dynamo.close();
    await expect(fetch(dynamo.endpoint, { method: 'POST' })).rejects.toThrow();
    await expect(dynamo.client.send(new ListTablesCommand({}))).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
  });

  it('keeps tables and items across a restart when given a path', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bridge-dynamodb-'));
    directories.push(dir);
    const path = join(dir, 'nested', 'dynamodb');

    const first = await startLocalDynamoDb({ path, transport });
    await createStateTable(first.client, 'state');
    const writer = new DynamoDbStateStore({ client: first.client, tableName: 'state' });
    await writer.saveStream(streamState('main:customer'), 0);
    await writer.putSnapshots('main:customer', [snapshot('a')]);
    await first.close();

    const second = await startLocalDynamoDb({ path, transport });
    try {
      const reader = new DynamoDbStateStore({ client: second.client, tableName: 'state' });
      expect(await reader.getStream('main:customer')).toMatchObject({ version: 1 });
      expect((await reader.getSnapshots('main:customer', ['a'])).get('a')).toEqual(snapshot('a'));
    } finally {
      await second.close();
    }
  });

  it('answers its client as it answers HTTP: binary values, conditions and errors', async () => {
    const dynamo = await startLocalDynamoDb({ transport });
    const overHttp = new DynamoDBClient({
      endpoint: dynamo.endpoint,
      region: 'us-east-1',
      credentials: LOCAL_CREDENTIALS,
    });
    try {
      await createStateTable(dynamo.client, 'both');
      const item = { pk: { S: 'p' }, sk: { S: 's' }, body: { B: new Uint8Array([0, 1, 255]) } };
      await dynamo.client.send(new PutItemCommand({ TableName: 'both', Item: item }));
      const key = { pk: { S: 'p' }, sk: { S: 's' } };
      for (const client of [dynamo.client, overHttp]) {
        const read = await client.send(new GetItemCommand({ TableName: 'both', Key: key }));
        expect(read.Item?.body?.B).toEqual(new Uint8Array([0, 1, 255]));
        await expect(
          client.send(
            new PutItemCommand({
              TableName: 'both',
              Item: item,
              ConditionExpression: 'attribute_not_exists(pk)',
            }),
          ),
        ).rejects.toBeInstanceOf(ConditionalCheckFailedException);
        await expect(
          client.send(new GetItemCommand({ TableName: 'missing', Key: key })),
        ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
      }
    } finally {
      overHttp.destroy();
      await dynamo.close();
    }
  });
});

describe('startLocalDynamoDb in a thread', () => {
  it('answers many requests at once, each with its own answer', async () => {
    const dynamo = await startLocalDynamoDb({ transport: 'thread' });
    try {
      await createStateTable(dynamo.client, 'many');
      const ids = Array.from({ length: 200 }, (_, i) => `item-${i}`);
      await Promise.all(
        ids.map((id) =>
          dynamo.client.send(
            new PutItemCommand({ TableName: 'many', Item: { pk: { S: id }, sk: { S: id } } }),
          ),
        ),
      );
      const read = await Promise.all(
        ids.map((id) =>
          dynamo.client.send(
            new GetItemCommand({ TableName: 'many', Key: { pk: { S: id }, sk: { S: id } } }),
          ),
        ),
      );
      expect(read.map((answer) => answer.Item?.pk?.S)).toEqual(ids);
    } finally {
      await dynamo.close();
    }
  });
});

describe.each(['in-process', 'thread'] as const)(
  'startLocalDynamoDb without a port, client %s',
  (transport) => {
    it('answers its client, keeps items across a restart and fails calls once closed', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'bridge-dynamodb-unserved-'));
      directories.push(dir);
      const path = join(dir, 'dynamodb');
      const first = await startLocalDynamoDb({ path, transport, listen: false });
      expect(first.endpoint).toBe('http://local-dynamodb.invalid');
      await createStateTable(first.client, 'state');
      const writer = new DynamoDbStateStore({ client: first.client, tableName: 'state' });
      await writer.saveStream(streamState('main:customer'), 0);
      await first.close();
      await first.close();
      await expect(first.client.send(new ListTablesCommand({}))).rejects.toMatchObject({
        code: 'ECONNREFUSED',
      });
      // Closed, its LevelDB is flushed and unlocked: the store opens again.
      const second = await startLocalDynamoDb({ path, transport, listen: false });
      try {
        const reader = new DynamoDbStateStore({ client: second.client, tableName: 'state' });
        expect(await reader.getStream('main:customer')).toMatchObject({ version: 1 });
      } finally {
        await second.close();
      }
    });
  },
);

it('startLocalDynamoDb refuses the http transport without a port', async () => {
  await expect(startLocalDynamoDb({ transport: 'http', listen: false })).rejects.toThrow(
    'without listening',
  );
});
