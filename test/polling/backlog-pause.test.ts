import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BacklogGauge } from '../../shared/polling/backlog-gauge.ts';
import type { PollDeps, StreamDefinition } from '../../shared/polling/poll-context.ts';
import { pollDueStreams } from '../../shared/polling/poll-due-streams.ts';
import { emittingCustomerStreams, type PollHarness, startPollHarness } from './poll-harness.ts';

// Below a page: every page crosses the bound, as when delivery is a first sync's bottleneck.
const BOUND = 40;
const PAGE = 50;

/** Undelivered = published minus what the test has "delivered" so far. */
class CountingGauge implements BacklogGauge {
  delivered = 0;
  constructor(private readonly published: () => number) {}
  async aboveBound(): Promise<boolean> {
    return this.published() - this.delivered > BOUND;
  }
}

describe('backpressure of the windowed poller', () => {
  let harness: PollHarness;
  let definitions: StreamDefinition[];
  let gauge: CountingGauge;
  const created = () => harness.publisher.events.filter((e) => e.type === 'customer.created');
  /** A poller started afresh on the same store (as after a restart): state comes from the store. */
  const freshDeps = (): PollDeps => ({ ...harness.deps('chain'), pageCount: PAGE, backlog: gauge });

  beforeAll(async () => {
    harness = await startPollHarness('small', 13);
    definitions = emittingCustomerStreams(harness);
    gauge = new CountingGauge(() => harness.publisher.events.length);
  });
  afterAll(async () => harness.close());

  it('pauses above the bound and resumes as deliveries drain, losing no event across a restart', async () => {
    const [first] = await pollDueStreams(definitions, freshDeps(), 'test');
    expect(first).toMatchObject({ kind: 'polled', caughtUp: false });
    const afterFirst = created().length;
    expect(afterFirst).toBeGreaterThan(BOUND);
    // The page that crossed the bound, and the one read ahead of it (taken, not read again).
    expect(afterFirst).toBeLessThanOrEqual(BOUND + 2 * PAGE);

    // Nothing delivered: detection stays paused, the rest waits at the source.
    await pollDueStreams(definitions, freshDeps(), 'test');
    expect(created().length).toBe(afterFirst);

    // Deliveries drain; each fresh poller resumes from the saved window and cursor.
    let rounds = 0;
    let caughtUp = false;
    while (!caughtUp && rounds < 50) {
      gauge.delivered = harness.publisher.events.length;
      const outcomes = await pollDueStreams(definitions, freshDeps(), 'test');
      caughtUp = outcomes.some((o) => o.kind === 'polled' && o.caughtUp);
      expect(harness.publisher.events.length - gauge.delivered).toBeLessThanOrEqual(
        BOUND + 2 * PAGE,
      );
      rounds++;
    }
    expect(caughtUp).toBe(true);
    expect(rounds).toBeGreaterThan(1);
    // The customer stream follows active customers (inactive ones are never read).
    const customers = [...harness.sim.controls.model.customers.all()]
      .filter((e) => e.record.IsActive !== false)
      .map((e) => e.record.Id);
    expect(customers.length).toBeGreaterThan(BOUND + PAGE);
    expect(new Set(created().map((e) => e.data.entityId))).toEqual(new Set(customers));
  });
});

describe('backpressure of the windowed poller, in connector requests', () => {
  let harness: PollHarness;
  let definitions: StreamDefinition[];
  let gauge: CountingGauge;
  const customerPages = () =>
    harness.sim.controls.requestLog().filter((r) => r.operation === 'customers/getAll');
  const freshDeps = (): PollDeps => ({ ...harness.deps('chain'), pageCount: PAGE, backlog: gauge });

  beforeAll(async () => {
    harness = await startPollHarness('small', 13);
    definitions = emittingCustomerStreams(harness);
    gauge = new CountingGauge(() => harness.publisher.events.length);
  });
  afterAll(async () => harness.close());

  it('reads each page of a paused first sync once: the page read ahead when the bound is crossed is taken, not read again', async () => {
    // Unpaused, the same sync reads every record once (the windows' overlap aside).
    const unpaused = await startPollHarness('small', 13);
    try {
      const all = unpaused
        .definitions()
        .filter((d) => d.spec.entityType === 'customer')
        .map((d) => ({ ...d, initialSync: 'emit' as const }));
      await pollDueStreams(all, { ...unpaused.deps('chain'), pageCount: PAGE }, 'test');
      const unpausedRequests = unpaused.sim.controls
        .requestLog()
        .filter((r) => r.operation === 'customers/getAll').length;

      let caughtUp = false;
      for (let round = 0; !caughtUp && round < 50; round++) {
        const outcomes = await pollDueStreams(definitions, freshDeps(), 'test');
        caughtUp = outcomes.some((o) => o.kind === 'polled' && o.caughtUp);
        gauge.delivered = harness.publisher.events.length;
      }
      expect(caughtUp).toBe(true);
      expect(customerPages().length).toBe(unpausedRequests);
    } finally {
      await unpaused.close();
    }
  });
});
