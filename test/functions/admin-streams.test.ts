import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminStreamDefinitions } from '../../functions/admin-api.ts';
import type { AdminDeps } from '../../shared/admin/admin-deps.ts';
import { DynamoDbBackfillJobStore } from '../../shared/admin/dynamodb-backfill-job-store.ts';
import type { AdminResponse } from '../../shared/admin/route.ts';
import { handleAdminRequest } from '../../shared/admin/router.ts';
import { DynamoDbConnectionStore } from '../../shared/connections/dynamodb-connection-store.ts';
import { streamDefinitions } from '../../shared/polling/poll-settings.ts';
import { DynamoDbStateStore } from '../../shared/state/dynamodb-state-store.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';
import { createAdminHarness } from '../admin/support/harness.ts';
import { storedConnection } from '../connections/connection-store.contract.ts';
import { streamState } from '../state/state-store.contract.ts';
import { type SdkDynalite, startSdkDynalite } from '../support/sdk-dynalite.ts';

/** Stored connections: more than a page of the connection listing (100). */
const HOTELS = 150;

let dynamo: SdkDynalite;
/** The dynalite's client, every command of which is recorded: name and input. */
let client: DynamoDBClient;
type Recorded = { command: string; input: Record<string, unknown> };
const sent: Recorded[] = [];

beforeAll(async () => {
  // A plain SDK client, so the stores' commands go through the SDK as in Lambda (and are
  // recorded); it reaches dynalite in process, unsigned: the ~600 connections the tables hold
  // are written without HTTP on both sides and SigV4.
  dynamo = await startSdkDynalite();
  client = dynamo.newClient();
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
  client?.destroy();
  await dynamo?.stop();
});

/**
 * A new table holding {@link HOTELS} stored connections (customers and resources each) and a
 * disabled one, with the stream states of `hotel-0` to `hotel-<statesOf - 1>` (two each).
 */
async function hotelTable(name: string, statesOf: number) {
  const harness = createAdminHarness();
  const tableName = `admin-streams-${name}-${process.pid}`;
  await createStateTable(client, tableName);
  const connections = new DynamoDbConnectionStore({ client, tableName });
  const state = new DynamoDbStateStore({ client, tableName, clock: harness.clock });
  for (let i = 0; i < HOTELS; i++)
    await connections.create(
      storedConnection(`hotel-${i}`, { entities: ['customer', 'resource'] }),
    );
  await connections.create(storedConnection('hotel-off', { enabled: false }));
  for (let i = 0; i < statesOf; i++)
    for (const type of ['customer', 'resource'])
      await state.saveStream(streamState(`hotel-${i}:${type}`, { initialSyncDone: true }), 0);
  const poll = {
    definitions: streamDefinitions('main', harness.settings),
    settings: harness.settings,
    tracked: {},
  };
  const deps = { ...harness.deps, state, streams: adminStreamDefinitions(poll, connections) };
  return { harness, deps, connections };
}

/** GET /streams through the router: the answer, and the commands it sent. */
async function listStreams(deps: AdminDeps, query: Record<string, string>) {
  sent.length = 0;
  const answer = await handleAdminRequest(
    { method: 'GET', path: '/streams', query, body: undefined },
    deps,
  );
  return { answer, commands: [...sent] };
}

/** The stream ids of a 200 answer, `(not configured)` after those without a definition. */
function idsOf(answer: AdminResponse): string[] {
  expect(answer.status).toBe(200);
  const body = answer.body as { streams: { id: string; configured: boolean }[] };
  return body.streams.map((s) => `${s.id}${s.configured ? '' : ' (not configured)'}`);
}

describe('GET /streams in AWS (the admin function over DynamoDB)', () => {
  it('reads the one connection named by connectionId, not every stored connection', async () => {
    const { harness, deps } = await hotelTable('one', 0);
    await deps.state.saveStream(streamState('hotel-7:customer', { initialSyncDone: true }), 0);
    await deps.state.saveStream(streamState('hotel-8:customer', { initialSyncDone: true }), 0);
    let commands: Recorded[] = [];
    const list = async (query: Record<string, string>) => {
      const listed = await listStreams(deps, query);
      commands = listed.commands;
      return idsOf(listed.answer);
    };
    try {
      const everything = await list({});
      const one = await list({ connectionId: 'hotel-7' });

      // The same streams as the whole list's of that connection...
      expect(one).toEqual(everything.filter((id) => id.startsWith('hotel-7:')));
      expect(one).toEqual(['hotel-7:customer', 'hotel-7:resource']);
      // ...from its own item and its own stream states: no read of the connections' partition,
      // its shard's range and the same range of the states stored before sharding.
      expect(commands.map((s) => s.command).sort()).toEqual([
        'GetItemCommand',
        'QueryCommand',
        'QueryCommand',
      ]);
      expect(commands.find((s) => s.command === 'GetItemCommand')!.input.Key).toEqual({
        pk: 'CONNECTIONS',
        sk: 'hotel-7',
      });
      const queries = commands.filter((s) => s.command === 'QueryCommand').map((s) => s.input);
      expect(queries.map((q) => stateQueryOf(q)).sort()).toEqual([
        { pk: 'STREAMS', prefix: 'hotel-7:' },
        { pk: expect.stringMatching(/^STREAMS#\d+$/), prefix: 'hotel-7:' },
      ]);

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

  it('resets a stream reading its own connection, not every stored connection', async () => {
    const { harness, deps, connections } = await hotelTable('reset', 5);
    try {
      sent.length = 0;
      const answer = await handleAdminRequest(
        { method: 'POST', path: '/streams/hotel-4:customer/reset', query: {}, body: undefined },
        deps,
      );
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ id: 'hotel-4:customer', configured: true });
      const listings = sent.filter(
        (c) =>
          c.command === 'QueryCommand' &&
          JSON.stringify(c.input.ExpressionAttributeValues).includes('CONNECTIONS'),
      );
      expect(listings).toEqual([]);
      expect(
        sent.some((c) => JSON.stringify(c.input.Key) === '{"pk":"CONNECTIONS","sk":"hotel-4"}'),
      ).toBe(true);
      // A stream of no configured connection is still found by its stored state alone.
      await connections.remove('hotel-3');
      const kept = await handleAdminRequest(
        { method: 'POST', path: '/streams/hotel-3:customer/reset', query: {}, body: undefined },
        deps,
      );
      expect(kept.status).toBe(200);
      expect(kept.body).toMatchObject({ id: 'hotel-3:customer', configured: false });
    } finally {
      await harness.close();
    }
  });

  it('answers the first page and nextCursor past the bound, reading one stream state more than it; the pages hold every stream once', async () => {
    const { harness, deps } = await hotelTable('bound', 6);
    try {
      // 12 stream states and 300 configured streams, against a bound of 10.
      const bounded = { ...deps, streamListLimit: 10 };
      const { answer, commands } = await listStreams(bounded, {});
      const all = idsOf((await listStreams({ ...deps, streamListLimit: 1000 }, {})).answer);
      expect(all).toEqual(idsOf((await listStreams(deps, {})).answer));
      expect(all.length).toBeGreaterThan(HOTELS * 2);
      expect(idsOf(answer)).toEqual(all.slice(0, 10));
      const first = answer.body as { nextCursor?: string };
      expect(first.nextCursor).toEqual(expect.any(String));
      // The stream states, for 11 of them: those stored before sharding first (up to 11), then
      // each shard, its share of 11 a Query; no more pages of them.
      const queries = commands
        .filter((c) => c.command === 'QueryCommand' && !isConnectionListing(c))
        .map((c) => c.input);
      expect(queries[0]).toMatchObject({
        ExpressionAttributeValues: { ':pk': 'STREAMS' },
        Limit: 11,
      });
      const shards = new Set(queries.slice(1).map((q) => stateQueryOf(q).pk));
      expect(shards.size).toBe(32);
      for (const query of queries.slice(1)) {
        expect(stateQueryOf(query).pk).toMatch(/^STREAMS#\d+$/);
        expect(query.Limit).toBeLessThanOrEqual(11);
      }

      // Page after page, every stream once and in order, reading states up to the page only.
      const pages: string[] = [...idsOf(answer)];
      let cursor = first.nextCursor;
      while (cursor !== undefined) {
        const next = await listStreams(bounded, { cursor });
        pages.push(...idsOf(next.answer));
        cursor = (next.answer.body as { nextCursor?: string }).nextCursor;
        for (const query of next.commands.filter(
          (c) => c.command === 'QueryCommand' && !isConnectionListing(c),
        ))
          expect(Number(query.input.Limit)).toBeLessThanOrEqual(12 + 11);
        // The stored connections from the cursor's on, about a page of them, not all 151: the
        // listing's Queries, and the cursor's connection and its prefixes whose streams sort
        // after its own (`hotel-12:…` before `hotel-1:…`), by key.
        const listed = next.commands.filter(isConnectionListing);
        expect(listed.reduce((sum, c) => sum + Number(c.input.Limit), 0)).toBeLessThan(20);
        expect(connectionsGot(next.commands).length).toBeLessThanOrEqual(5);
      }
      expect(pages).toEqual(all);

      // One connection's, whatever the bound.
      const one = await listStreams({ ...deps, streamListLimit: 1 }, { connectionId: 'hotel-3' });
      expect(idsOf(one.answer)).toEqual(['hotel-3:customer']);
      expect((one.answer.body as { nextCursor?: string }).nextCursor).toEqual(expect.any(String));
    } finally {
      await harness.close();
    }
  });
});

/** The partition and sort key prefix (if any) a recorded Query of stream states reads. */
function stateQueryOf(input: Record<string, unknown>): { pk: string; prefix?: string } {
  const values = input.ExpressionAttributeValues as { ':pk': string; ':prefix'?: string };
  return values[':prefix'] === undefined
    ? { pk: values[':pk'] }
    : { pk: values[':pk'], prefix: values[':prefix'] };
}

/** Whether a recorded command is a Query of the connections' partition (their listing). */
function isConnectionListing(c: Recorded): boolean {
  return (
    c.command === 'QueryCommand' &&
    JSON.stringify(c.input.ExpressionAttributeValues).includes('CONNECTIONS')
  );
}

/** The connections read by key (GetItem) among recorded commands, in the order sent. */
function connectionsGot(commands: readonly Recorded[]): string[] {
  return commands.flatMap((c) => {
    const key = c.input.Key as { pk?: string; sk?: string } | undefined;
    return c.command === 'GetItemCommand' && key?.pk === 'CONNECTIONS' ? [String(key.sk)] : [];
  });
}

describe('POST /backfill in AWS (the admin function over DynamoDB)', () => {
  it('with connections named, reads their items and not every stored connection, starting and reading the job', async () => {
    const table = await hotelTable('backfill', 0);
    const { harness } = table;
    // The jobs in the table too, as the admin function keeps them.
    const backfills = new DynamoDbBackfillJobStore({
      client,
      tableName: `admin-streams-backfill-${process.pid}`,
      clock: harness.clock,
    });
    const deps = { ...table.deps, backfills };
    const call = async (method: string, path: string, body?: unknown) => {
      sent.length = 0;
      const answer = await handleAdminRequest({ method, path, query: {}, body }, deps);
      return { answer, commands: [...sent] };
    };
    try {
      const started = await call('POST', '/backfill', {
        connections: ['hotel-9', 'hotel-42', 'hotel-9'],
      });
      expect(started.answer.status).toBe(202);
      const job = started.answer.body as { id: string; streams: { streamId: string }[] };
      expect(job.streams.map((s) => s.streamId).sort()).toEqual([
        'hotel-42:customer',
        'hotel-42:resource',
        'hotel-9:customer',
        'hotel-9:resource',
      ]);
      expect(started.commands.filter(isConnectionListing)).toEqual([]);
      expect([...new Set(connectionsGot(started.commands))].sort()).toEqual([
        'hotel-42',
        'hotel-9',
      ]);

      // Its progress reads the same connections, not the listing either.
      const progress = await call('GET', `/backfill/${job.id}`);
      expect(progress.answer.status).toBe(200);
      expect(progress.commands.filter(isConnectionListing)).toEqual([]);
      expect([...new Set(connectionsGot(progress.commands))].sort()).toEqual([
        'hotel-42',
        'hotel-9',
      ]);

      // A disabled, an unknown and a props connection: as the whole list has them.
      const refused = await call('POST', '/backfill', { connections: ['hotel-1', 'hotel-off'] });
      expect(refused.answer.status).toBe(400);
      expect(refused.answer.body).toMatchObject({ field: 'connections[1]' });
      expect(refused.commands.filter(isConnectionListing)).toEqual([]);
      const unknown = await call('POST', '/backfill', { connections: ['nobody'] });
      expect(unknown.answer.body).toMatchObject({ field: 'connections[0]' });
      const main = await call('POST', '/backfill', {
        connections: ['main'],
        entities: ['customer'],
      });
      expect(main.answer.status).toBe(202);
      expect((main.answer.body as typeof job).streams.map((s) => s.streamId)).toEqual([
        'main:customer',
      ]);
      expect(main.commands.filter(isConnectionListing)).toEqual([]);

      // Without connections named, every enabled connection's streams, from the listing.
      const all = await call('POST', '/backfill', { entities: ['resource'] });
      expect(all.answer.status).toBe(202);
      expect((all.answer.body as typeof job).streams).toHaveLength(HOTELS + 1);
      expect(all.commands.filter(isConnectionListing).length).toBeGreaterThan(0);
    } finally {
      await harness.close();
    }
  });
});
