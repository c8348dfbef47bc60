import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { DynamoDbStateStore } from '../../shared/state/dynamodb-state-store.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';
import { snapshot, streamState } from './state-store.contract.ts';

const directories: string[] = [];

afterEach(async () => {
  await Promise.all(directories.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('startLocalDynamoDb', () => {
  it('serves DynamoDB on a loopback port and stops on close', async () => {
    const dynamo = await startLocalDynamoDb();
    expect(dynamo.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await dynamo.client.send(new ListTablesCommand({}))).toMatchObject({ TableNames: [] });

    await dynamo.close();
    await dynamo.close();
    await expect(fetch(dynamo.endpoint, { method: 'POST' })).rejects.toThrow();
  });

  it('keeps tables and items across a restart when given a path', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bridge-dynamodb-'));
    directories.push(dir);
    const path = join(dir, 'nested', 'dynamodb');

    const first = await startLocalDynamoDb({ path });
    await createStateTable(first.client, 'state');
    const writer = new DynamoDbStateStore({ client: first.client, tableName: 'state' });
    await writer.saveStream(streamState('main:customer'), 0);
    await writer.putSnapshots('main:customer', [snapshot('a')]);
    await first.close();

    const second = await startLocalDynamoDb({ path });
    try {
      const reader = new DynamoDbStateStore({ client: second.client, tableName: 'state' });
      expect(await reader.getStream('main:customer')).toMatchObject({ version: 1 });
      expect((await reader.getSnapshots('main:customer', ['a'])).get('a')).toEqual(snapshot('a'));
    } finally {
      await second.close();
    }
  });
});
