import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { MemoryBulkLaneLedger } from '../../shared/publish/bulk-lane.ts';
import { processLaneBatch } from '../../shared/webhooks/bulk-lane-batch.ts';
import { keepGroupOrder } from '../../shared/webhooks/fifo-group-order.ts';
import { MemoryWebhookStore } from '../../shared/webhooks/memory-store.ts';
import { changeEvent, createHarness, envelope, eventIdOf } from './support/harness.ts';

const record = (n: number, connection = 'main') => ({
  messageId: `m${n}`,
  body: envelope({ ...changeEvent(eventIdOf(n)), source: `connector/${connection}` }),
});

describe('processLaneBatch', () => {
  it('counts a bulk batch’s handled events per stream, and a live batch’s not at all', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const ledger = new MemoryBulkLaneLedger(clock);
    await ledger.queued(
      new Map([
        ['main:customer', 3],
        ['hotel-7:customer', 1],
      ]),
    );
    const { deps } = createHarness({ clock });
    await processLaneBatch([record(1), record(2, 'hotel-7')], deps, 'live', ledger);
    expect(await ledger.pending(['main:customer', 'hotel-7:customer'])).toEqual(
      new Set(['main:customer', 'hotel-7:customer']),
    );
    await processLaneBatch([record(3), record(4), record(5, 'hotel-7')], deps, 'bulk', ledger);
    expect(await ledger.pending(['main:customer', 'hotel-7:customer'])).toEqual(
      new Set(['main:customer']),
    );
  });

  it('notes a bulk batch’s handled events by id, so their subjects’ live events leave the bulk lane', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const ledger = new MemoryBulkLaneLedger(clock);
    const subjectOf = (n: number) => `main:customer#c-${eventIdOf(n).slice(-6)}`;
    await ledger.marked([1, 2].map((n) => ({ subject: subjectOf(n), eventId: eventIdOf(n) })));
    const { deps } = createHarness({ clock });
    await processLaneBatch([record(1)], deps, 'live', ledger);
    expect(await ledger.waitingSubjects([subjectOf(1), subjectOf(2)])).toEqual(
      new Set([subjectOf(1), subjectOf(2)]),
    );
    await processLaneBatch([record(1)], deps, 'bulk', ledger);
    expect(await ledger.waitingSubjects([subjectOf(1), subjectOf(2)])).toEqual(
      new Set([subjectOf(2)]),
    );
  });

  it('notes an event handled only once the batch that sends it is done, not when a second copy is acknowledged meanwhile', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const ledger = new MemoryBulkLaneLedger(clock);
    const subject = `main:customer#c-${eventIdOf(1).slice(-6)}`;
    await ledger.marked([{ subject, eventId: eventIdOf(1) }]);
    const harness = createHarness({ clock });
    await harness.service.createSubscription({ url: 'https://hooks.example.com/in' });
    let answer: () => void = () => {};
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    let requests = 0;
    harness.deps.sender = {
      send: async () => {
        requests++;
        await answered;
        return { kind: 'response', status: 200, headers: {}, body: '', latencyMs: 1 };
      },
    };
    const first = processLaneBatch([record(1)], harness.deps, 'bulk', ledger);
    while (requests === 0) await new Promise((resolve) => setImmediate(resolve));
    // The same event published again: its copy is acknowledged while the first is in flight.
    await processLaneBatch([{ ...record(1), messageId: 'm1-copy' }], harness.deps, 'bulk', ledger);
    expect(await ledger.waitingSubjects([subject])).toEqual(new Set([subject]));
    answer();
    await first;
    expect(requests).toBe(1);
    expect(await ledger.waitingSubjects([subject])).toEqual(new Set());
  });

  it('attempts a backfill’s delivery message the bulk queue carries (AWS) as bulk work, counting no event for it', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const ledger = new MemoryBulkLaneLedger(clock);
    await ledger.queued(new Map([['main:customer', 1]]));
    const harness = createHarness({ clock });
    await harness.service.createSubscription({ url: 'https://hooks.example.com/in' });
    const lanes: string[] = [];
    harness.deps.sender = {
      send: async () => ({ kind: 'response', status: 500, headers: {}, body: '', latencyMs: 1 }),
    };
    const run = harness.deps.scheduler.run.bind(harness.deps.scheduler);
    harness.deps.scheduler.run = (...args) => {
      lanes.push(String(args[4]));
      return run(...args);
    };
    // Its event's first attempt fails: its retry is a message of the bulk lane.
    await processLaneBatch([record(1)], harness.deps, 'bulk', ledger);
    expect(await ledger.pending(['main:customer'])).toEqual(new Set());
    await clock.advance(3_600_000);
    await ledger.queued(new Map([['main:customer', 1]]));
    const [retry] = harness.queue.receive(10);
    expect(JSON.parse(retry!.body)).toMatchObject({ kind: 'delivery', lane: 'bulk' });
    await processLaneBatch([retry!], harness.deps, 'bulk', ledger);
    expect(lanes).toEqual(['bulk', 'bulk']);
    // Not an event: the stream's queued event is still pending.
    expect(await ledger.pending(['main:customer'])).toEqual(new Set(['main:customer']));
  });

  it('logs a failure to count and still answers the batch (its events were handled)', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const warnings: string[] = [];
    const { deps } = createHarness({ clock });
    deps.logger = { warn: (message) => warnings.push(message), error: () => {} };
    const ledger = new MemoryBulkLaneLedger(clock);
    ledger.handled = async () => {
      throw new Error('table unavailable');
    };
    const result = await processLaneBatch([record(1)], deps, 'bulk', ledger);
    expect(result).toEqual({ batchItemFailures: [] });
    expect(warnings).toEqual(['could not count the bulk lane events handled']);
  });

  it('counts no event of a FIFO group whose record comes back behind a failed one (it is counted when it is handled again)', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const ledger = new MemoryBulkLaneLedger(clock);
    await ledger.queued(new Map([['main:customer', 1]]));
    // A delivery message whose lookup fails, then an event of the same group: SQS must hand the
    // event back behind it (keepGroupOrder), so it is not handled yet.
    const store = new MemoryWebhookStore();
    store.getDelivery = async () => {
      throw new Error('table unavailable');
    };
    const { deps } = createHarness({ clock, store });
    const group = { MessageGroupId: 'customer:c-1' };
    const records = [
      {
        messageId: 'm-retry',
        body: JSON.stringify({ kind: 'delivery', deliveryId: 'dlv_1' }),
        attributes: group,
      },
      { ...record(1), attributes: group },
    ];
    const result = await processLaneBatch(records, deps, 'bulk', ledger, (response) =>
      keepGroupOrder(records, response),
    );
    expect(result.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(['m-retry', 'm1']);
    expect(await ledger.pending(['main:customer'])).toEqual(new Set(['main:customer']));
    // Handled again later, the event is counted then: counted now too, the stream's count would
    // run one ahead for good, and its next bulk work would leave the bulk lane one event early.
    await processLaneBatch([record(1)], deps, 'bulk', ledger);
    expect(await ledger.pending(['main:customer'])).toEqual(new Set());
    await ledger.queued(new Map([['main:customer', 1]]));
    expect(await ledger.pending(['main:customer'])).toEqual(new Set(['main:customer']));
  });
});

describe('processLaneBatch given a deadline already passed', () => {
  for (const lane of ['live', 'bulk'] as const) {
    it(`sends nothing from the ${lane} lane and defers each delivery, failing no record`, async () => {
      const clock = new ManualClock(Date.UTC(2026, 0, 1));
      const ledger = new MemoryBulkLaneLedger(clock);
      await ledger.queued(new Map([['main:customer', 2]]));
      const harness = createHarness({ clock });
      await harness.service.createSubscription({ url: 'https://hooks.example.com/in' });
      let sent = 0;
      harness.deps.sender = {
        send: async () => {
          sent++;
          return { kind: 'response', status: 200, headers: {}, body: '', latencyMs: 1 };
        },
      };
      const result = await processLaneBatch(
        [record(1), record(2)],
        harness.deps,
        lane,
        ledger,
        undefined,
        clock.now(),
      );
      expect(result).toEqual({ batchItemFailures: [] });
      expect(sent).toBe(0);
      const deliveries = await harness.store.listDeliveries({ limit: 10 });
      expect(deliveries.map((d) => [d.status, d.attempts])).toEqual([
        ['pending', 0],
        ['pending', 0],
      ]);
      expect(harness.queue.size).toBe(2);
      expect(await ledger.pending(['main:customer'])).toEqual(
        lane === 'bulk' ? new Set() : new Set(['main:customer']),
      );
    });
  }
});
