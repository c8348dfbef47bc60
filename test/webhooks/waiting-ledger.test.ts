import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { LOCAL_CREDENTIALS } from '../../shared/local/local-credentials.ts';
import { documentClientOf } from '../../shared/state/document-client.ts';
import { BatchWaiting } from '../../shared/webhooks/batch-waiting.ts';
import { newDelivery } from '../../shared/webhooks/deliveries.ts';
import { DispatchBatch } from '../../shared/webhooks/dispatch-batch.ts';
import {
  DynamoDbWaitingLedger,
  WAITING_COUNT_SK,
} from '../../shared/webhooks/dynamodb-waiting-ledger.ts';
import {
  dueAheadOf,
  isLost,
  LEDGER_FORGOTTEN_AFTER_MS,
  MemoryWaitingLedger,
  type WaitingLedger,
} from '../../shared/webhooks/waiting-ledger.ts';
import { createHarness } from './support/harness.ts';
import { type LocalTable, startLocalTable } from './support/local-dynamodb.ts';

describe('dueAheadOf', () => {
  const marks = [
    { deliveryId: 'd1', dueAt: 9_000, notedAt: 1 },
    { deliveryId: 'd2', dueAt: 4_000, notedAt: 2 },
    { deliveryId: 'd3', dueAt: 20_000, notedAt: 3 },
  ];

  it('is the latest due time of the deliveries noted before the one asked about', () => {
    expect(dueAheadOf(marks, 'd1')).toBeUndefined();
    expect(dueAheadOf(marks, 'd2')).toBe(9_000);
    expect(dueAheadOf(marks, 'd3')).toBe(9_000);
    // A delivery not among them waits behind all of them.
    expect(dueAheadOf(marks, 'd9')).toBe(20_000);
  });

  it('marks a delivery overdue by more than the ledger’s forgetting limit as maybe lost, without passing over it', () => {
    // A minute late is not lost in AWS (a busy queue hands retries over late).
    expect(isLost(marks[0]!, 9_000 + 60_001)).toBe(false);
    expect(isLost(marks[0]!, 9_000 + LEDGER_FORGOTTEN_AFTER_MS + 1)).toBe(true);
    // Lateness alone settles nothing: the batch asks the store (DispatchBatch.notBefore).
    expect(dueAheadOf(marks, 'd3')).toBe(9_000);
  });
});

/** The contract every ledger keeps. */
function ledgerContract(name: string, make: () => WaitingLedger) {
  describe(`${name}: the waiting ledger`, () => {
    it('lists a subject’s waiting deliveries in the order first noted, and keeps a re-noted one’s place', async () => {
      const ledger = make();
      await ledger.apply([{ endpoint: 'e1', subject: 'c-1', deliveryId: 'b', dueAt: 5_000 }], 100);
      await ledger.apply([{ endpoint: 'e1', subject: 'c-1', deliveryId: 'a', dueAt: 6_000 }], 200);
      // Re-deferred later: it keeps its place before `a`.
      await ledger.apply([{ endpoint: 'e1', subject: 'c-1', deliveryId: 'b', dueAt: 7_000 }], 300);
      expect(await ledger.waitingOf('e1', 'c-1')).toEqual([
        { deliveryId: 'b', dueAt: 7_000, notedAt: 100 },
        { deliveryId: 'a', dueAt: 6_000, notedAt: 200 },
      ]);
      expect(await ledger.waitingOf('e1', 'c-2')).toEqual([]);
      expect(await ledger.waitingOf('e2', 'c-1')).toEqual([]);
    });

    it('lists deliveries noted together (one batch deferring a subject’s chain) in the order given, not by id', async () => {
      const ledger = make();
      const ids = ['m', 'z', 'a', 'k'];
      await ledger.apply(
        ids.map((deliveryId, n) => ({
          endpoint: 'e-together',
          subject: 'c-1',
          deliveryId,
          dueAt: 5_000 + n,
        })),
        100,
      );
      const marks = await ledger.waitingOf('e-together', 'c-1');
      expect(marks.map((mark) => mark.deliveryId)).toEqual(ids);
      // The first of `k` is `m`, `z` and `a`, all due before it: `k` waits for them.
      expect(dueAheadOf(marks, 'k')).toBe(5_002);
      expect(dueAheadOf(marks, 'm')).toBeUndefined();
    });

    it('marks a backfill’s waiting delivery until one caller takes it ahead (then due now), or it is noted as live work', async () => {
      const ledger = make();
      await ledger.apply(
        [
          { endpoint: 'e-bulk', subject: 'c-1', deliveryId: 'b1', dueAt: 90_000, lane: 'bulk' },
          { endpoint: 'e-bulk', subject: 'c-1', deliveryId: 'l1', dueAt: 90_000, lane: 'live' },
          { endpoint: 'e-bulk', subject: 'c-1', deliveryId: 'b2', dueAt: 95_000, lane: 'bulk' },
        ],
        100,
      );
      expect((await ledger.waitingOf('e-bulk', 'c-1')).map((mark) => mark.bulk)).toEqual([
        true,
        undefined,
        true,
      ]);
      // Two processes ask at once: each backfill delivery goes to one of them; live work to none.
      const asked = ['b1', 'l1', 'b2', 'gone'];
      const [first, second] = await Promise.all([
        ledger.takeBulk('e-bulk', 'c-1', asked, 1_000),
        ledger.takeBulk('e-bulk', 'c-1', asked, 1_000),
      ]);
      expect([...first!, ...second!].sort()).toEqual(['b1', 'b2']);
      expect(await ledger.takeBulk('e-bulk', 'c-1', asked, 2_000)).toEqual([]);
      expect(await ledger.waitingOf('e-bulk', 'c-1')).toEqual([
        { deliveryId: 'b1', dueAt: 1_000, notedAt: 100 },
        { deliveryId: 'l1', dueAt: 90_000, notedAt: 100 + 1 / 3 },
        { deliveryId: 'b2', dueAt: 1_000, notedAt: 100 + 2 / 3 },
      ]);
      // Noted again as a backfill's, marked again; then as live work (sent ahead), no longer.
      await ledger.apply(
        [{ endpoint: 'e-bulk', subject: 'c-1', deliveryId: 'b1', dueAt: 9_000, lane: 'bulk' }],
        3_000,
      );
      expect((await ledger.waitingOf('e-bulk', 'c-1'))[0]).toEqual({
        deliveryId: 'b1',
        dueAt: 9_000,
        notedAt: 100,
        bulk: true,
      });
      await ledger.apply(
        [{ endpoint: 'e-bulk', subject: 'c-1', deliveryId: 'b1', dueAt: 9_500 }],
        4_000,
      );
      expect((await ledger.waitingOf('e-bulk', 'c-1'))[0]?.bulk).toBeUndefined();
      expect(await ledger.takeBulk('e-bulk', 'c-1', ['b1'], 5_000)).toEqual([]);
    });

    it('counts the deliveries waiting at an endpoint, up on a note and down once settled', async () => {
      const ledger = make();
      expect(await ledger.countAt('e3')).toBe(0);
      await ledger.apply(
        [
          { endpoint: 'e3', subject: 'c-1', deliveryId: 'x', dueAt: 5_000 },
          { endpoint: 'e3', subject: 'c-2', deliveryId: 'y', dueAt: 5_000 },
          { endpoint: 'e4', subject: 'c-1', deliveryId: 'z', dueAt: 5_000 },
        ],
        0,
      );
      expect(await ledger.countAt('e3')).toBe(2);
      // A re-note is not counted twice; a settle of one never noted changes nothing.
      await ledger.apply(
        [
          { endpoint: 'e3', subject: 'c-1', deliveryId: 'x', dueAt: 9_000 },
          { endpoint: 'e3', subject: 'c-9', deliveryId: 'never' },
        ],
        1,
      );
      expect(await ledger.countAt('e3')).toBe(2);
      await ledger.apply([{ endpoint: 'e3', subject: 'c-1', deliveryId: 'x' }], 2);
      expect(await ledger.countAt('e3')).toBe(1);
      expect(await ledger.waitingOf('e3', 'c-1')).toEqual([]);
      await ledger.apply([{ endpoint: 'e3', subject: 'c-2', deliveryId: 'y' }], 3);
      expect(await ledger.countAt('e3')).toBe(0);
      expect(await ledger.countAt('e4')).toBe(1);
    });
  });
}

ledgerContract('memory', () => new MemoryWaitingLedger());

let table: LocalTable;
beforeAll(async () => {
  table = await startLocalTable('waiting-ledger-test');
});
afterAll(async () => table.stop());

// Each test of the contract uses endpoints of its own, so they share the table.
ledgerContract(
  'DynamoDB (dynalite)',
  () => new DynamoDbWaitingLedger({ client: table.client, tableName: table.tableName }),
);

describe('a batch’s view of the ledger', () => {
  it('lists a lost mark (its retry long overdue) until it is forgotten, then the endpoint’s count comes back to 0', async () => {
    const ledger = new MemoryWaitingLedger();
    const clock = new ManualClock(0);
    await ledger.apply([{ endpoint: 'e1', subject: 'c-1', deliveryId: 'lost', dueAt: 1_000 }], 0);
    await clock.advance(1_000 + LEDGER_FORGOTTEN_AFTER_MS + 1);
    const batch = new BatchWaiting(ledger, clock, { warn: () => {}, error: () => {} });
    expect(await batch.dueAhead('e1', 'c-1', 'next')).toBe(1_000);
    expect(await batch.lostAhead('e1', 'c-1', 'next')).toEqual(['lost']);
    batch.forget('e1', 'c-1', 'lost');
    expect(await batch.dueAhead('e1', 'c-1', 'next')).toBeUndefined();
    await batch.write();
    expect(await ledger.countAt('e1')).toBe(0);
  });

  it('counts what the batch noted since it read, after what the ledger listed', async () => {
    const ledger = new MemoryWaitingLedger();
    const clock = new ManualClock(0);
    await ledger.apply([{ endpoint: 'e1', subject: 'c-1', deliveryId: 'd1', dueAt: 5_000 }], 0);
    const batch = new BatchWaiting(ledger, clock, { warn: () => {}, error: () => {} });
    await batch.read('e1', 'c-1');
    const pending = { subscriptionId: 'e1', status: 'pending' as const };
    batch.note({ ...pending, id: 'd2', nextAttemptAt: 9_000 } as never, 'c-1', false);
    expect(await batch.dueAhead('e1', 'c-1', 'd3')).toBe(9_000);
    expect(await batch.dueAhead('e1', 'c-1', 'd2')).toBe(5_000);
    // d1 delivered in this batch: it no longer holds d2 back, though the read listed it.
    batch.note({ subscriptionId: 'e1', status: 'delivered', id: 'd1' } as never, 'c-1', true);
    expect(await batch.dueAhead('e1', 'c-1', 'd2')).toBeUndefined();
    await batch.write();
    expect((await ledger.waitingOf('e1', 'c-1')).map((mark) => mark.deliveryId)).toEqual(['d2']);
  });
});

describe('when a delivery may go behind a predecessor due but not yet settled', () => {
  it('is 5 s on with a waiting ledger (its attempt may be in flight elsewhere), 1 s without', async () => {
    const clock = new ManualClock(100_000);
    const ledger = new MemoryWaitingLedger();
    await ledger.apply([{ endpoint: 'e1', subject: 'c-1', deliveryId: 'd1', dueAt: 98_000 }], 0);
    const shared = createHarness({ clock, waitingLedger: ledger });
    const alone = createHarness({ clock });
    alone.deps.scheduler.noteWaiting('e1', 'c-1', 'd1', 98_000);
    try {
      expect(await new DispatchBatch(shared.deps).notBefore('e1', 'c-1', 'd2')).toBe(105_000);
      expect(await new DispatchBatch(alone.deps).notBefore('e1', 'c-1', 'd2')).toBe(101_000);
      // Not yet due: just after it, either way.
      await ledger.apply([{ endpoint: 'e1', subject: 'c-1', deliveryId: 'd1', dueAt: 130_000 }], 0);
      expect(await new DispatchBatch(shared.deps).notBefore('e1', 'c-1', 'd2')).toBe(130_001);
    } finally {
      await Promise.all([shared.sender.close(), alone.sender.close()]);
    }
  });

  it('looks again less often the later the predecessor is, with a ledger or without: a quarter of its lateness, a minute at most', async () => {
    const clock = new ManualClock(1_000_000);
    const ledger = new MemoryWaitingLedger();
    const shared = createHarness({ clock, waitingLedger: ledger });
    const alone = createHarness({ clock });
    const lateBy = async (ms: number) => {
      await ledger.apply(
        [{ endpoint: 'e1', subject: 'c-1', deliveryId: 'd1', dueAt: clock.now() - ms }],
        0,
      );
      alone.deps.scheduler.noteWaiting('e1', 'c-1', 'd1', clock.now() - ms);
      const [withLedger, without] = await Promise.all([
        new DispatchBatch(shared.deps).notBefore('e1', 'c-1', 'd2'),
        new DispatchBatch(alone.deps).notBefore('e1', 'c-1', 'd2'),
      ]);
      return [(withLedger ?? 0) - clock.now(), (without ?? 0) - clock.now()];
    };
    try {
      expect(await lateBy(2_000)).toEqual([5_000, 1_000]);
      expect(await lateBy(10_000)).toEqual([5_000, 2_500]);
      expect(await lateBy(40_000)).toEqual([10_000, 10_000]);
      expect(await lateBy(120_000)).toEqual([30_000, 30_000]);
      expect(await lateBy(600_000)).toEqual([60_000, 60_000]);
      // Unknown to the store (gone), a predecessor 16 minutes overdue is forgotten by both.
      expect(await lateBy(16 * 60_000)).toEqual([-clock.now(), -clock.now()]);
    } finally {
      await Promise.all([shared.sender.close(), alone.sender.close()]);
    }
  });
});

describe('a long-overdue earlier delivery', () => {
  it('is asked about in the store: pending, waited for and its message sent again; settled, let go; none waiting, no read', async () => {
    const clock = new ManualClock(1_000_000);
    const harness = createHarness({ clock });
    const reads: string[] = [];
    const getDelivery = harness.store.getDelivery.bind(harness.store);
    harness.store.getDelivery = (id) => {
      reads.push(id);
      return getDelivery(id);
    };
    try {
      const due = clock.now();
      await harness.store.createDelivery(newDelivery('d1', 'evt-1', 'e1', due));
      harness.deps.scheduler.noteWaiting('e1', 'c-1', 'd1', due);
      // Nothing waits for another subject: no store read.
      expect(await new DispatchBatch(harness.deps).notBefore('e1', 'c-2', 'd9')).toBeUndefined();
      expect(reads).toEqual([]);
      await clock.advance(20 * 60_000);
      const pendingBatch = new DispatchBatch(harness.deps);
      expect(await pendingBatch.notBefore('e1', 'c-1', 'd2')).toBe(clock.now() + 1_000);
      expect(reads).toEqual(['d1']);
      await pendingBatch.flush();
      const sent = harness.queue.receive(10).map((message) => JSON.parse(message.body));
      expect(sent).toEqual([
        { kind: 'delivery', deliveryId: 'd1', subscriptionId: 'e1', subject: 'c-1' },
      ]);
      // Noted as due now: not asked about again for another 15 minutes.
      expect(harness.deps.scheduler.dueAhead('e1', 'c-1', 'd2')).toBe(clock.now());
      await clock.advance(20 * 60_000);
      const stored = (await harness.store.getDelivery('d1'))!;
      await harness.store.updateDelivery({
        ...stored,
        status: 'delivered',
        version: stored.version + 1,
      });
      const settledBatch = new DispatchBatch(harness.deps);
      expect(await settledBatch.notBefore('e1', 'c-1', 'd2')).toBeUndefined();
      await settledBatch.flush();
      expect(harness.queue.size).toBe(0);
      expect(harness.deps.scheduler.dueAhead('e1', 'c-1', 'd2')).toBeUndefined();
    } finally {
      await harness.sender.close();
    }
  });
});

describe('a long-overdue delivery of a subject nobody asks about, without a waiting ledger', () => {
  it('is asked about in the store once the sweep finds it, not forgotten: pending, its message is sent again and it is attempted', async () => {
    const clock = new ManualClock(1_000_000);
    const harness = createHarness({ clock });
    try {
      const due = clock.now();
      // Two deliveries wait for a retry whose message is lost (never on the queue): one still
      // pending, one delivered meanwhile (out of this process's sight).
      await harness.store.createDelivery(newDelivery('lost', 'evt-1', 'e1', due));
      await harness.store.createDelivery({
        ...newDelivery('settled', 'evt-2', 'e1', due),
        status: 'delivered',
      });
      harness.deps.scheduler.noteWaiting('e1', 'c-1', 'lost', due);
      harness.deps.scheduler.noteWaiting('e1', 'c-2', 'settled', due);
      await clock.advance(16 * 60_000);
      // Other subjects' retries are noted meanwhile, enough for the memory's sweep to run.
      for (let n = 0; n < 1000; n++)
        harness.deps.scheduler.noteWaiting('e2', `s-${n}`, `other-${n}`, clock.now() + 60_000);
      // The next batch of the process (any) asks the store about what the sweep found.
      await new DispatchBatch(harness.deps).flush();
      const sent = harness.queue.receive(10);
      expect(sent.map((message) => JSON.parse(message.body))).toEqual([
        { kind: 'delivery', deliveryId: 'lost', subscriptionId: 'e1', subject: 'c-1' },
      ]);
      // Still waited for (due now: asked about again after another 15 minutes); the settled one is let go.
      expect(harness.deps.scheduler.dueAhead('e1', 'c-1', 'next')).toBe(clock.now());
      expect(harness.deps.scheduler.dueAhead('e1', 'c-2', 'next')).toBeUndefined();
      // Its message attempts it (its subscription is gone: dead-lettered).
      for (const message of sent) harness.queue.sendRaw(message.body);
      await harness.drainVisible();
      expect(await harness.store.getDelivery('lost')).toMatchObject({
        status: 'dead',
        deadReason: 'subscription removed',
      });
    } finally {
      await harness.sender.close();
    }
  });

  it('is asked about by a batch 15 minutes after the last sweep, however few retries were noted since', async () => {
    const clock = new ManualClock(1_000_000);
    const harness = createHarness({ clock });
    try {
      await harness.store.createDelivery(newDelivery('lost', 'evt-1', 'e1', clock.now()));
      harness.deps.scheduler.noteWaiting('e1', 'c-1', 'lost', clock.now());
      await clock.advance(16 * 60_000);
      await new DispatchBatch(harness.deps).flush();
      expect(harness.queue.receive(10).map((message) => JSON.parse(message.body))).toEqual([
        { kind: 'delivery', deliveryId: 'lost', subscriptionId: 'e1', subject: 'c-1' },
      ]);
    } finally {
      await harness.sender.close();
    }
  });

  it('is forgotten unread with a waiting ledger: its mark there is what a later event asks about', async () => {
    const clock = new ManualClock(1_000_000);
    const harness = createHarness({ clock, waitingLedger: new MemoryWaitingLedger() });
    const reads: string[] = [];
    const getDelivery = harness.store.getDelivery.bind(harness.store);
    harness.store.getDelivery = (id) => {
      reads.push(id);
      return getDelivery(id);
    };
    try {
      harness.deps.scheduler.noteWaiting('e1', 'c-1', 'elsewhere', clock.now());
      await clock.advance(16 * 60_000);
      for (let n = 0; n < 1000; n++)
        harness.deps.scheduler.noteWaiting('e2', `s-${n}`, `other-${n}`, clock.now() + 60_000);
      await new DispatchBatch(harness.deps).flush();
      expect(reads).toEqual([]);
      expect(harness.queue.size).toBe(0);
      expect(harness.deps.scheduler.waitingDeliveries).toBe(1000);
    } finally {
      await harness.sender.close();
    }
  });
});

describe('DynamoDB waiting ledger', () => {
  it('raises the count before it writes the marks: a failed mark write leaves the count high, never low', async () => {
    const ledger = new DynamoDbWaitingLedger({ client: table.client, tableName: table.tableName });
    // A client of its own whose writes of marks (items `WAITING#…`) fail; the count's go through.
    const failingClient = new DynamoDBClient({
      region: 'us-east-1',
      endpoint: await table.client.config
        .endpoint?.()
        .then((url) => `${url.protocol}//${url.hostname}:${url.port}`),
      credentials: LOCAL_CREDENTIALS,
    });
    const sent: string[] = [];
    failingClient.middlewareStack.add(
      (next) => async (args) => {
        // Before the document client marshals it, the key is plain (`{ pk: 'WAITING#…' }`).
        const pk = String((args.input as { Key?: { pk?: unknown } }).Key?.pk ?? '');
        sent.push(pk);
        if (pk.startsWith('WAITING#')) throw new Error('throttled');
        return next(args);
      },
      { step: 'initialize' },
    );
    const failing = new DynamoDbWaitingLedger({
      client: failingClient,
      tableName: table.tableName,
    });
    await expect(
      failing.apply([{ endpoint: 'e9', subject: 'c-1', deliveryId: 'd1', dueAt: 5_000 }], 0),
    ).rejects.toThrow();
    failingClient.destroy();
    expect(sent).toEqual(['ENDPOINT#e9', 'WAITING#e9#c-1']);
    expect(await ledger.countAt('e9')).toBe(1);
    expect(await ledger.waitingOf('e9', 'c-1')).toEqual([]);
    const stored = await documentClientOf(table.client, {}).send(
      new GetCommand({
        TableName: table.tableName,
        Key: { pk: 'ENDPOINT#e9', sk: WAITING_COUNT_SK },
      }),
    );
    expect(stored.Item?.waiting).toBe(1);
    // The raise set the count's expiry two days on (after the last raise nothing it counts waits).
    expect(stored.Item?.ttl).toBe(2 * 86_400);
  });
});
