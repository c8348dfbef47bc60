import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminStreamDefinitions } from '../../functions/admin-api.ts';
import { handleAdminRequest } from '../../shared/admin/router.ts';
import { DynamoDbConnectionStore } from '../../shared/connections/dynamodb-connection-store.ts';
import { type LocalDynamoDb, startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { streamDefinitions } from '../../shared/polling/poll-settings.ts';
import { DynamoDbStateStore } from '../../shared/state/dynamodb-state-store.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';
import { createAdminHarness } from '../admin/support/harness.ts';
import { storedConnection } from '../connections/connection-store.contract.ts';
import { streamState } from '../state/state-store.contract.ts';

/** Stored connections: more than a page of the connection listing (100). */
const HOTELS = 150;

let dynamo: LocalDynamoDb;
/** The dynalite's client, every command of which is recorded: name and input. */
let client: DynamoDBClient;
const sent: { command: string; input: Record<string, unknown> }[] = [];

beforeAll(async () => {
  // Over HTTP, so the stores' commands go through the SDK as in Lambda (and are recorded).
  dynamo = await startLocalDynamoDb({ transport: 'http' });
  client = dynamo.client;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      sent.push({
        command: String(context.commandName),
        input: args.input as Record<string, unknown>,
      });
      return next(args);
    },
    { step: 'initialize', name: 'recordCommands' },
  );
});

afterAll(async () => {
  await dynamo?.close();
});

describe('GET /streams in AWS (the admin function over DynamoDB)', () => {
  it('reads the one connection named by connectionId, not every stored connection', async () => {
    const harness = createAdminHarness();
    const tableName = `admin-streams-${process.pid}`;
    await createStateTable(client, tableName);
    const connections = new DynamoDbConnectionStore({ client, tableName });
    const state = new DynamoDbStateStore({ client, tableName, clock: harness.clock });
    for (let i = 0; i < HOTELS; i++)
      await connections.create(
        storedConnection(`hotel-${i}`, { entities: ['customer', 'resource'] }),
      );
    await connections.create(storedConnection('hotel-off', { enabled: false }));
    await state.saveStream(streamState('hotel-7:customer', { initialSyncDone: true }), 0);
    await state.saveStream(streamState('hotel-8:customer', { initialSyncDone: true }), 0);
    const poll = {
      definitions: streamDefinitions('main', harness.settings),
      settings: harness.settings,
      tracked: {},
    };
    const deps = { ...harness.deps, state, streams: adminStreamDefinitions(poll, connections) };
    const list = async (query: Record<string, string>) => {
      sent.length = 0;
      const answer = await handleAdminRequest(
        { method: 'GET', path: '/streams', query, body: undefined },
        deps,
      );
      expect(answer.status).toBe(200);
      const body = answer.body as { streams: { id: string; configured: boolean }[] };
      return body.streams.map((s) => `${s.id}${s.configured ? '' : ' (not configured)'}`);
    };
    try {
      const everything = await list({});
      const one = await list({ connectionId: 'hotel-7' });

      // The same streams as the whole list's of that connection...
      expect(one).toEqual(everything.filter((id) => id.startsWith('hotel-7:')));
      expect(one).toEqual(['hotel-7:customer', 'hotel-7:resource']);
      // ...from its own item and its own stream states: no read of the connections' partition.
      expect(sent.map((s) => s.command).sort()).toEqual(['GetItemCommand', 'QueryCommand']);
      expect(sent.find((s) => s.command === 'GetItemCommand')!.input.Key).toEqual({
        pk: 'CONNECTIONS',
        sk: 'hotel-7',
      });
      expect(JSON.stringify(sent.find((s) => s.command === 'QueryCommand')!.input)).toContain(
        'hotel-7:',
      );

      // A disabled, an unknown and a props connection: as the whole list has them.
      expect(await list({ connectionId: 'hotel-off' })).toEqual([]);
      expect(await list({ connectionId: 'nobody' })).toEqual([]);
      expect(await list({ connectionId: 'main' })).toEqual(
        everything.filter((id) => id.startsWith('main:')),
      );
    } finally {
      await harness.close();
    }
  });
});
