import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalDynamoDb, startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import {
  type DocumentClient,
  documentClientOf,
  routeDocumentClients,
} from '../../shared/state/document-client.ts';
import { DynamoDbStateStore } from '../../shared/state/dynamodb-state-store.ts';
import { StateConflictError, type StreamState } from '../../shared/state/state-store.ts';
import { LOCAL_STREAM_STATE_SHARDS } from '../../shared/state/stream-state-shards.ts';
import { createStoreOnNewTable } from './dynamodb-harness.ts';
import { streamState } from './state-store.contract.ts';

let dynamo: LocalDynamoDb;

beforeAll(async () => {
  dynamo = await startLocalDynamoDb();
});

afterAll(async () => {
  await dynamo?.close();
});

const WATERMARK = '2026-11-30T10:00:00.000Z';

/** Every stream state item of `streamId` in the table, whichever partition holds it. */
async function storedStateItems(
  tableName: string,
  streamId: string,
): Promise<{ pk: string; version: number; watermark: string | null }[]> {
  const { Items = [] } = await documentClientOf(dynamo.client).send(
    new ScanCommand({
      TableName: tableName,
      FilterExpression: '#sk = :sk AND begins_with(#pk, :streams)',
      ExpressionAttributeNames: { '#sk': 'sk', '#pk': 'pk' },
      ExpressionAttributeValues: { ':sk': streamId, ':streams': 'STREAMS' },
    }),
  );
  return Items.map((item) => ({
    pk: item.pk as string,
    version: item.version as number,
    watermark: item.watermark as string | null,
  }));
}

/** A state as a release before sharding stored it: under the single partition `STREAMS`. */
async function putLegacyState(tableName: string, state: StreamState): Promise<void> {
  await documentClientOf(dynamo.client).send(
    new PutCommand({ TableName: tableName, Item: { ...state, pk: 'STREAMS', sk: state.streamId } }),
  );
}

type Command = { constructor: { name: string }; input: Record<string, unknown> };

/**
 * A store on `tableName` whose every command first awaits `before(command)`: another writer's
 * work can be run at an exact step of this store's.
 */
function storeRunningBefore(
  tableName: string,
  before: (command: Command) => Promise<void>,
): DynamoDbStateStore {
  const client = new DynamoDBClient({ region: 'us-east-1' });
  routeDocumentClients(client, (translateConfig) => {
    const inner = documentClientOf(dynamo.client, translateConfig);
    const send = async (command: Command) => {
      await before(command);
      return inner.send(command as never);
    };
    return { send } as unknown as DocumentClient;
  });
  return new DynamoDbStateStore({ client, tableName });
}

/** Runs `action` once, before the first command `matches` accepts; `ran()` tells whether it did. */
function onceBefore(matches: (command: Command) => boolean, action: () => Promise<unknown>) {
  let ran = false;
  return {
    ran: () => ran,
    before: async (command: Command) => {
      if (ran || !matches(command)) return;
      ran = true;
      await action();
    },
  };
}

const keyPk = (command: Command): unknown =>
  (command.input.Item as { pk?: unknown } | undefined)?.pk ??
  (command.input.Key as { pk?: unknown } | undefined)?.pk;
/** The put that copies a legacy state to its shard (created only where none is). */
const isCopyToShard = (command: Command) =>
  command.constructor.name === 'PutCommand' &&
  String(keyPk(command)).startsWith('STREAMS#') &&
  String(command.input.ConditionExpression).includes('attribute_not_exists');
const isLegacyDelete = (command: Command) =>
  command.constructor.name === 'DeleteCommand' && keyPk(command) === 'STREAMS';
const isLegacyRead = (command: Command) =>
  command.constructor.name === 'GetCommand' && keyPk(command) === 'STREAMS';

describe('DynamoDbStateStore on dynalite: stream states sharded by connection', () => {
  it('keeps no state under the single STREAMS partition, spreading connections over shards, and lists them all in stream id order', async () => {
    const { store, tableName } = await createStoreOnNewTable(dynamo.client);
    const ids = Array.from({ length: 40 }, (_, i) => [
      `hotel-${i}:customer`,
      `hotel-${i}:resource`,
    ]).flat();
    // Saved out of order: the listing orders them, not the writes.
    for (const id of [...ids].reverse()) await store.saveStream(streamState(id), 0);

    const partitions = new Set<string>();
    for (const id of ['hotel-0:customer', 'hotel-0:resource', 'hotel-7:customer']) {
      const [item, ...others] = await storedStateItems(tableName, id);
      expect(others).toEqual([]);
      expect(item?.pk).toMatch(/^STREAMS#\d+$/);
      partitions.add(item!.pk);
    }
    // A connection's streams share its shard.
    const hotel0 = (await storedStateItems(tableName, 'hotel-0:customer'))[0]!.pk;
    expect((await storedStateItems(tableName, 'hotel-0:resource'))[0]!.pk).toBe(hotel0);
    for (const id of ids) partitions.add((await storedStateItems(tableName, id))[0]!.pk);
    expect(partitions.size).toBeGreaterThan(10);

    const sorted = [...ids].sort();
    expect((await store.listStreams()).map((s) => s.streamId)).toEqual(sorted);
    expect((await store.listStreams(undefined, { limit: 7 })).map((s) => s.streamId)).toEqual(
      sorted.slice(0, 7),
    );
    expect((await store.listStreams(undefined, { limit: 79 })).map((s) => s.streamId)).toEqual(
      sorted.slice(0, 79),
    );
    expect((await store.listStreams({ connectionId: 'hotel-12' })).map((s) => s.streamId)).toEqual([
      'hotel-12:customer',
      'hotel-12:resource',
    ]);
  });

  it('reads a state stored under STREAMS and moves it to its shard on its first write, keeping its watermark', async () => {
    const { store, tableName } = await createStoreOnNewTable(dynamo.client);
    const legacy = streamState('hotel-1:customer', {
      watermark: WATERMARK,
      initialSyncDone: true,
      version: 5,
    });
    await putLegacyState(tableName, legacy);

    expect(await store.getStream(legacy.streamId)).toEqual(legacy);
    expect(await store.listStreams()).toEqual([legacy]);
    expect(await store.listStreams({ connectionId: 'hotel-1' })).toEqual([legacy]);

    const saved = await store.saveStream({ ...legacy, lastPollAt: 1_000 }, 5);
    expect(saved).toMatchObject({ version: 6, watermark: WATERMARK, lastPollAt: 1_000 });
    const items = await storedStateItems(tableName, legacy.streamId);
    expect(items).toEqual([
      { pk: expect.stringMatching(/^STREAMS#\d+$/), version: 6, watermark: WATERMARK },
    ]);
    expect(await store.getStream(legacy.streamId)).toEqual(saved);
    await expect(store.saveStream(legacy, 5)).rejects.toBeInstanceOf(StateConflictError);
    expect(await store.saveStream(saved, 6)).toMatchObject({ version: 7, watermark: WATERMARK });
  });

  it('refuses a stale write to a state stored under STREAMS, losing nothing of it', async () => {
    const { store, tableName } = await createStoreOnNewTable(dynamo.client);
    const legacy = streamState('hotel-1:customer', { watermark: WATERMARK, version: 5 });
    await putLegacyState(tableName, legacy);

    await expect(store.saveStream({ ...legacy, watermark: null }, 4)).rejects.toBeInstanceOf(
      StateConflictError,
    );
    await expect(store.saveStream(legacy, 0)).rejects.toBeInstanceOf(StateConflictError);
    expect(await store.getStream(legacy.streamId)).toEqual(legacy);
    expect(await store.listStreams()).toEqual([legacy]);
  });

  it('lists states not moved yet beside moved ones, in stream id order, the moved one winning over a copy left under STREAMS', async () => {
    const { store, tableName } = await createStoreOnNewTable(dynamo.client);
    for (const id of ['hotel-3:customer', 'hotel-1:resource', 'hotel-5:customer'])
      await putLegacyState(tableName, streamState(id, { version: 2 }));
    for (const id of ['hotel-2:customer', 'hotel-4:customer', 'hotel-1:customer'])
      await store.saveStream(streamState(id, { watermark: WATERMARK }), 0);
    // A copy left under STREAMS (a move cut off before it deleted it): older than the shard's.
    await putLegacyState(tableName, streamState('hotel-4:customer', { version: 9 }));

    const listed = await store.listStreams();
    expect(listed.map((s) => s.streamId)).toEqual([
      'hotel-1:customer',
      'hotel-1:resource',
      'hotel-2:customer',
      'hotel-3:customer',
      'hotel-4:customer',
      'hotel-5:customer',
    ]);
    expect(listed.find((s) => s.streamId === 'hotel-4:customer')).toMatchObject({
      version: 1,
      watermark: WATERMARK,
    });
    expect(await store.getStream('hotel-4:customer')).toMatchObject({ version: 1 });
    // The copy counts once against a limit.
    const firstFive = await store.listStreams(undefined, { limit: 5 });
    expect(firstFive.map((s) => s.streamId)).toEqual(listed.slice(0, 5).map((s) => s.streamId));
    expect(
      (await store.listStreams({ connectionId: 'hotel-1' }, { limit: 1 })).map((s) => s.streamId),
    ).toEqual(['hotel-1:customer']);
    expect(
      (await store.listStreams({ connectionId: 'hotel-4' })).map((s) => [s.streamId, s.version]),
    ).toEqual([['hotel-4:customer', 1]]);
  });

  it('deletes both forms of a state: one not moved yet, and one moved with a copy left under STREAMS', async () => {
    const { store, tableName } = await createStoreOnNewTable(dynamo.client);
    await putLegacyState(tableName, streamState('hotel-1:customer', { version: 3 }));
    await store.saveStream(streamState('hotel-2:customer'), 0);
    await putLegacyState(tableName, streamState('hotel-2:customer', { version: 1 }));

    await store.deleteStream('hotel-1:customer');
    await store.deleteStream('hotel-2:customer');

    expect(await storedStateItems(tableName, 'hotel-1:customer')).toEqual([]);
    expect(await storedStateItems(tableName, 'hotel-2:customer')).toEqual([]);
    expect(await store.getStream('hotel-1:customer')).toBeUndefined();
    expect(await store.listStreams()).toEqual([]);
    expect(await store.saveStream(streamState('hotel-1:customer'), 0)).toMatchObject({
      version: 1,
    });
  });
});

describe('DynamoDbStateStore on dynalite: the local runtime’s one shard', () => {
  it('reads a data dir’s states stored under STREAMS and moves each to STREAMS#0 on its next write', async () => {
    const { tableName } = await createStoreOnNewTable(dynamo.client);
    const store = new DynamoDbStateStore({
      client: dynamo.client,
      tableName,
      streamStateShards: LOCAL_STREAM_STATE_SHARDS,
    });
    const legacy = streamState('local:customer', { watermark: WATERMARK, version: 3 });
    await putLegacyState(tableName, legacy);
    await store.saveStream(streamState('local:resource'), 0);

    expect((await store.listStreams()).map((s) => s.streamId)).toEqual([
      'local:customer',
      'local:resource',
    ]);
    await store.saveStream(legacy, 3);
    expect(await storedStateItems(tableName, 'local:customer')).toEqual([
      { pk: 'STREAMS#0', version: 4, watermark: WATERMARK },
    ]);
    expect(await storedStateItems(tableName, 'local:resource')).toEqual([
      { pk: 'STREAMS#0', version: 1, watermark: null },
    ]);
    expect(
      () => new DynamoDbStateStore({ client: dynamo.client, tableName, streamStateShards: 0 }),
    ).toThrow(expect.objectContaining({ path: 'streamStateShards' }));
  });
});

describe('DynamoDbStateStore on dynalite: writes racing the move of a state to its shard', () => {
  const id = 'hotel-1:customer';
  const legacy = streamState(id, { watermark: WATERMARK, initialSyncDone: true, version: 5 });
  const later = '2026-11-30T11:00:00.000Z';

  it('two writers of the same version: the one that moves it first wins, the other is refused', async () => {
    const { store: other, tableName } = await createStoreOnNewTable(dynamo.client);
    await putLegacyState(tableName, legacy);
    const race = onceBefore(isCopyToShard, () =>
      other.saveStream({ ...legacy, watermark: later }, 5),
    );
    const store = storeRunningBefore(tableName, race.before);

    await expect(store.saveStream({ ...legacy, lastError: 'lost' }, 5)).rejects.toBeInstanceOf(
      StateConflictError,
    );
    expect(race.ran()).toBe(true);
    expect(await store.getStream(id)).toMatchObject({
      version: 6,
      watermark: later,
      lastError: null,
    });
    expect(await storedStateItems(tableName, id)).toEqual([
      { pk: expect.stringMatching(/^STREAMS#/), version: 6, watermark: later },
    ]);
  });

  it('a write to the moved state before the mover deletes the old item is kept, and the mover refused', async () => {
    const { store: other, tableName } = await createStoreOnNewTable(dynamo.client);
    await putLegacyState(tableName, legacy);
    const race = onceBefore(isLegacyDelete, async () => {
      const read = await other.getStream(id);
      expect(read).toEqual(legacy);
      await other.saveStream({ ...read!, watermark: later }, read!.version);
    });
    const store = storeRunningBefore(tableName, race.before);

    await expect(store.saveStream({ ...legacy, lastError: 'lost' }, 5)).rejects.toBeInstanceOf(
      StateConflictError,
    );
    expect(race.ran()).toBe(true);
    expect(await store.getStream(id)).toMatchObject({
      version: 6,
      watermark: later,
      lastError: null,
    });
    expect(await storedStateItems(tableName, id)).toEqual([
      { pk: expect.stringMatching(/^STREAMS#/), version: 6, watermark: later },
    ]);
  });

  it('a write under STREAMS by a function not upgraded yet, while the state is moved, is moved too', async () => {
    const { tableName } = await createStoreOnNewTable(dynamo.client);
    await putLegacyState(tableName, legacy);
    const race = onceBefore(isLegacyDelete, () =>
      putLegacyState(tableName, { ...legacy, watermark: later, version: 6 }),
    );
    const store = storeRunningBefore(tableName, race.before);

    await expect(store.saveStream({ ...legacy, lastError: 'lost' }, 5)).rejects.toBeInstanceOf(
      StateConflictError,
    );
    expect(race.ran()).toBe(true);
    expect(await store.getStream(id)).toMatchObject({ version: 6, watermark: later });
    expect(await storedStateItems(tableName, id)).toEqual([
      { pk: expect.stringMatching(/^STREAMS#/), version: 6, watermark: later },
    ]);
  });

  it('a deletion while the state is moved is not undone by the move', async () => {
    const { store: other, tableName } = await createStoreOnNewTable(dynamo.client);
    await putLegacyState(tableName, legacy);
    const race = onceBefore(isCopyToShard, () => other.deleteStream(id));
    const store = storeRunningBefore(tableName, race.before);

    await expect(store.saveStream(legacy, 5)).rejects.toBeInstanceOf(StateConflictError);
    expect(race.ran()).toBe(true);
    expect(await store.getStream(id)).toBeUndefined();
    expect(await store.listStreams()).toEqual([]);
    expect(await storedStateItems(tableName, id)).toEqual([]);
  });

  it('a read finds a state moved between its read of the shard and its read of STREAMS', async () => {
    const { store: other, tableName } = await createStoreOnNewTable(dynamo.client);
    await putLegacyState(tableName, legacy);
    const race = onceBefore(isLegacyRead, () =>
      other.saveStream({ ...legacy, watermark: later }, 5),
    );
    const store = storeRunningBefore(tableName, race.before);

    expect(await store.getStream(id)).toMatchObject({ version: 6, watermark: later });
    expect(race.ran()).toBe(true);
  });
});
