import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GrantLedger, MemoryGrantLedger } from '../../shared/connector/budget/grant-ledger.ts';
import { type LocalDynamoDb, startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { LOCAL_CREDENTIALS } from '../../shared/local/local-credentials.ts';
import { DynamoDbGrantLedger } from '../../shared/state/dynamodb-grant-ledger.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';

let dynamo: LocalDynamoDb;
beforeAll(async () => {
  dynamo = await startLocalDynamoDb();
  await createStateTable(dynamo.client, 'ledger-test');
});
afterAll(() => dynamo.close());

/** A clock for one take: it reads `ms` at every attempt. */
const readsAt = (ms: number) => () => ms;

const implementations: [string, () => GrantLedger][] = [
  ['memory', () => new MemoryGrantLedger()],
  ['DynamoDB (dynalite)', () => new DynamoDbGrantLedger(dynamo.client, 'ledger-test')],
];

describe.each(implementations)('GrantLedger contract: %s', (_name, create) => {
  it('grants up to the capacity within a window and refuses the next', async () => {
    const ledger = create();
    const key = `k-${crypto.randomUUID()}`;
    for (let i = 0; i < 3; i++)
      expect((await ledger.take(key, readsAt(1000 + i), 30_000, 3)).granted).toBe(true);
    const refused = await ledger.take(key, readsAt(2000), 30_000, 3);
    expect(refused).toEqual({ granted: false, grants: [1000, 1001, 1002] });
    expect((await ledger.take(key, readsAt(31_000), 30_000, 3)).granted).toBe(true);
    expect(await ledger.recent(key, 31_000, 30_000)).toEqual([1001, 1002, 31_000]);
  });

  it('never lets concurrent takers together pass the capacity', async () => {
    const ledger = create();
    const key = `k-${crypto.randomUUID()}`;
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => ledger.take(key, readsAt(5000 + i), 30_000, 5)),
    );
    expect(results.filter((result) => result.granted)).toHaveLength(5);
    expect(await ledger.recent(key, 6000, 30_000)).toHaveLength(5);
  });

  it('refuses every take until a pause ends, and never shortens a pause', async () => {
    const ledger = create();
    const key = `k-${crypto.randomUUID()}`;
    await ledger.take(key, readsAt(1000), 30_000, 5);
    await ledger.pause(key, 9000);
    await ledger.pause(key, 4000);
    expect(await ledger.take(key, readsAt(5000), 30_000, 5)).toEqual({
      granted: false,
      grants: [1000],
      pausedUntil: 9000,
    });
    expect((await ledger.take(key, readsAt(9000), 30_000, 5)).granted).toBe(true);
    expect(await ledger.recent(key, 9000, 30_000)).toEqual([1000, 9000]);
  });

  it('gives back one grant of a request never sent, its slot free again', async () => {
    const ledger = create();
    const key = `k-${crypto.randomUUID()}`;
    for (const at of [1000, 1000, 1001])
      expect((await ledger.take(key, readsAt(at), 30_000, 3)).granted).toBe(true);
    expect((await ledger.take(key, readsAt(1002), 30_000, 3)).granted).toBe(false);
    await ledger.release(key, { grantAt: 1000 });
    // One of the two taken at 1000 is gone; a time with no grant gives back nothing.
    await ledger.release(key, { grantAt: 1500 });
    expect(await ledger.recent(key, 1002, 30_000)).toEqual([1000, 1001]);
    expect((await ledger.take(key, readsAt(1002), 30_000, 3)).granted).toBe(true);
    await ledger.release(`k-${crypto.randomUUID()}`, { grantAt: 1000 });
  });

  it('gives back a live grant to its taker’s reserve, which other takers’ bulk work leaves free again', async () => {
    const ledger = create();
    const key = `k-${crypto.randomUUID()}`;
    const poller = { taker: 'poller', reserve: { requests: 2, untilMs: 60_000 } };
    const proxy = { taker: 'proxy', live: false };
    for (const at of [1000, 1001])
      expect(
        (await ledger.take(key, readsAt(at), 30_000, 10, { ...poller, live: true })).granted,
      ).toBe(true);
    // The reserve is spent: the proxy may take the other eight.
    for (let i = 0; i < 8; i++)
      expect((await ledger.take(key, readsAt(2000 + i), 30_000, 10, proxy)).granted).toBe(true);
    await ledger.release(key, { grantAt: 1001, liveTaker: 'poller' });
    // The slot is free, but held for the poller's live polls: not the proxy's.
    expect(await ledger.take(key, readsAt(3000), 30_000, 10, proxy)).toMatchObject({
      granted: false,
      heldForOthers: 1,
    });
    expect(
      (await ledger.take(key, readsAt(3000), 30_000, 10, { ...poller, live: true })).granted,
    ).toBe(true);
  });

  it('moves a grant to the time its request is sent, its slot kept in a full window', async () => {
    const ledger = create();
    const key = `k-${crypto.randomUUID()}`;
    for (const at of [1000, 1001, 1002]) await ledger.take(key, readsAt(at), 30_000, 3);
    expect(await ledger.restamp(key, { grantAt: 1000 }, readsAt(4000), 30_000, 3)).toEqual({
      granted: true,
      at: 4000,
      grants: [1001, 1002, 4000],
    });
    expect(await ledger.recent(key, 4000, 30_000)).toEqual([1001, 1002, 4000]);
    // A grant it no longer holds (aged out of the window) is taken again: refused when full.
    expect(await ledger.restamp(key, { grantAt: 500 }, readsAt(4001), 30_000, 3)).toEqual({
      granted: false,
      grants: [1001, 1002, 4000],
    });
  });

  it('moves a live grant in its taker’s reserve too, and moves nothing while paused', async () => {
    const ledger = create();
    const key = `k-${crypto.randomUUID()}`;
    const poller = { taker: 'poller', live: true, reserve: { requests: 2, untilMs: 60_000 } };
    const proxy = { taker: 'proxy', live: false };
    await ledger.take(key, readsAt(1000), 30_000, 10, poller);
    await ledger.take(key, readsAt(1001), 30_000, 10, poller);
    // The poller's live grant taken at `grantAt`, moved to `at`.
    const moveLive = (grantAt: number, at: number) =>
      ledger.restamp(key, { grantAt, liveTaker: 'poller' }, readsAt(at), 30_000, 10, poller);
    await moveLive(1000, 2000);
    // The poller's reserve counts two live grants still: the proxy's bulk work may fill the rest.
    for (let i = 0; i < 8; i++)
      expect((await ledger.take(key, readsAt(2001 + i), 30_000, 10, proxy)).granted).toBe(true);
    await ledger.pause(key, 9000);
    expect(await moveLive(1001, 3000)).toMatchObject({ granted: false, pausedUntil: 9000 });
    expect(await ledger.recent(key, 3000, 30_000)).toEqual([
      1001, 2000, 2001, 2002, 2003, 2004, 2005, 2006, 2007, 2008,
    ]);
  });

  it('keeps separate logs per key', async () => {
    const ledger = create();
    await ledger.take('key-a', readsAt(1000), 30_000, 1);
    expect((await ledger.take('key-b', readsAt(1000), 30_000, 1)).granted).toBe(true);
  });

  it('keeps bulk takes off the unused live reserve of other takers, through a pause', async () => {
    const ledger = create();
    const key = `k-${crypto.randomUUID()}`;
    const reserve = { requests: 3, untilMs: 3000 };
    const poller = { taker: 'poller', reserve };
    // The poller spends one of its three: two stay held from the proxy's bulk takes.
    expect(
      (await ledger.take(key, readsAt(1000), 30_000, 10, { ...poller, live: true })).granted,
    ).toBe(true);
    await ledger.pause(key, 1500);
    const proxy = { taker: 'proxy', live: false };
    for (let i = 0; i < 7; i++)
      expect((await ledger.take(key, readsAt(2000 + i), 30_000, 10, proxy)).granted).toBe(true);
    const refused = await ledger.take(key, readsAt(2100), 30_000, 10, proxy);
    expect(refused).toMatchObject({ granted: false, heldForOthers: 2 });
    // Never below the floor it keeps, and a taker's own reserve is its own to spend.
    expect(
      (await ledger.take(key, readsAt(2101), 30_000, 10, { ...proxy, bulkFloor: 9 })).granted,
    ).toBe(true);
    expect(
      (await ledger.take(key, readsAt(2102), 30_000, 10, { ...poller, live: false })).granted,
    ).toBe(true);
    // Once the reserve lapses, nothing is held.
    expect(await ledger.take(key, readsAt(3000), 30_000, 11, proxy)).toEqual({
      granted: true,
      at: 3000,
      grants: [1000, 2000, 2001, 2002, 2003, 2004, 2005, 2006, 2101, 2102, 3000],
    });
  });
});

describe('DynamoDbGrantLedger', () => {
  const ledgerWithCount = () => {
    const client = new DynamoDBClient({
      endpoint: dynamo.endpoint,
      region: 'us-east-1',
      credentials: LOCAL_CREDENTIALS,
    });
    const sent: string[] = [];
    client.middlewareStack.add(
      (next, context) => (args) => {
        sent.push(String(context.commandName));
        return next(args);
      },
      { step: 'initialize' },
    );
    return { ledger: new DynamoDbGrantLedger(client, 'ledger-test'), sent };
  };

  it('takes a grant with one conditional write, and no read, once it wrote the item itself', async () => {
    const { ledger, sent } = ledgerWithCount();
    const key = `k-${crypto.randomUUID()}`;
    await ledger.take(key, readsAt(1000), 30_000, 5);
    expect(sent).toEqual(['GetItemCommand', 'PutItemCommand']);
    sent.length = 0;
    await ledger.take(key, readsAt(1001), 30_000, 5);
    expect(sent).toEqual(['PutItemCommand']);
  });

  it('shares one budget between two processes whose remembered items go stale', async () => {
    const first = new DynamoDbGrantLedger(dynamo.client, 'ledger-test');
    const second = new DynamoDbGrantLedger(dynamo.client, 'ledger-test');
    const key = `k-${crypto.randomUUID()}`;
    const granted: boolean[] = [];
    for (let i = 0; i < 8; i++) {
      const taker = i % 3 === 0 ? second : first;
      granted.push((await taker.take(key, readsAt(1000 + i), 30_000, 5)).granted);
    }
    expect(granted).toEqual([true, true, true, true, true, false, false, false]);
    expect(await first.recent(key, 2000, 30_000)).toEqual([1000, 1001, 1002, 1003, 1004]);
  });

  it('shows a pause written by one process to another that remembers its own last write', async () => {
    const answered = new DynamoDbGrantLedger(dynamo.client, 'ledger-test');
    const other = new DynamoDbGrantLedger(dynamo.client, 'ledger-test');
    const key = `k-${crypto.randomUUID()}`;
    await other.take(key, readsAt(1000), 30_000, 5);
    await answered.pause(key, 6000);
    expect(await other.take(key, readsAt(2000), 30_000, 5)).toMatchObject({
      granted: false,
      pausedUntil: 6000,
    });
    expect((await other.take(key, readsAt(6000), 30_000, 5)).granted).toBe(true);
  });
});
