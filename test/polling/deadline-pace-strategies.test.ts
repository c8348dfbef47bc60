import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pollConnectionStreams } from '../../shared/polling/poll-connection.ts';
import type { StreamDefinition } from '../../shared/polling/poll-context.ts';
import type { StreamState } from '../../shared/state/state-store.ts';
import { type PollHarness, startPollHarness } from './poll-harness.ts';
import { runOnClock, type SlowConnector, slowSimulatorConnector } from './slow-connector.ts';

/** How long each answer takes to come back (on the test's clock). */
const PAGE_MS = 1_000;
const DAY_MS = 24 * 60 * 60_000;

/**
 * Poll jobs of the `chain` connection cut by their invocation's deadline, against the simulator,
 * each answer PAGE_MS on its way back; the work between answers takes no time on the clock. A
 * request in flight at the deadline is aborted there (spent for nothing, `aborted`), and the next
 * job asks for it again. So: no request asked for that cannot be answered before the deadline,
 * and, across the cut job and the next, every request asked for once.
 */
describe('every poll strategy asks for no request it cannot have before the deadline', () => {
  let h: PollHarness;
  let slow: SlowConnector;

  beforeEach(async () => {
    h = await startPollHarness('small', 11, {}, {}, 'memory');
    const world = h.sim.controls.model.world;
    slow = slowSimulatorConnector(h.sim, h.clock, PAGE_MS, {
      accessToken: h.sim.tokens.portfolioToken,
      client: 'pace tests',
      portfolioScope: { chainIds: [world.chainId] },
    });
  }, 60_000);

  afterEach(async () => {
    await slow.client.close();
    await h.close();
  });

  const streamOf = (entityType: string): StreamDefinition =>
    h.definitions().find((d) => d.spec.entityType === entityType)!;

  /** One poll job of `streams`, in that order, cut `deadlineInPages` answers from now. */
  const job = (streams: StreamDefinition[], deadlineInPages?: number) => {
    const deadline =
      deadlineInPages === undefined ? undefined : h.clock.now() + deadlineInPages * PAGE_MS;
    return runOnClock(h.clock, slow, () =>
      pollConnectionStreams(
        streams.map((d) => d.streamId),
        streams,
        {
          ...h.deps('chain'),
          client: slow.client,
          ...(deadline === undefined ? {} : { deadline }),
        },
        'pace-test',
      ),
    );
  };
  const asked = (operation: string, field?: string) =>
    slow.asked.filter((r) => r.operation === operation && (!field || field in r.body));
  const patchState = async (streamId: string, patch: Partial<StreamState>) => {
    const store = h.deps('chain').store;
    const state = (await store.getStream(streamId))!;
    await store.saveStream({ ...state, ...patch }, state.version);
  };

  it('product prices: prices the products that fit, and the next job the others, each once', async () => {
    const prices = streamOf('productPrice');
    const products = prices.products!.map((p) => p.productId);
    expect(products.length).toBeGreaterThanOrEqual(3);

    // Two answers fit before the deadline; a third asked at once would still be on its way.
    const first = await job([prices], 2.5);
    expect(slow.aborted()).toBe(0);
    expect(asked('products/getPricing')).toHaveLength(2);
    expect(first.outcomes).toEqual([
      { kind: 'polled', streamId: prices.streamId, caughtUp: false },
    ]);
    const store = h.deps('chain').store;
    expect((await store.getStream(prices.streamId))?.pricePosition).toBe(products[1]);

    const second = await job([prices]);
    expect(second.outcomes).toMatchObject([{ kind: 'polled', caughtUp: true }]);
    const pricedIds = asked('products/getPricing').map((r) => r.body.ProductId);
    // Every product priced once across the two jobs, none asked for again.
    expect(pricedIds).toEqual(products);
    expect(slow.aborted()).toBe(0);
    // The round is done: the next one starts from the first product.
    expect((await store.getStream(prices.streamId))?.pricePosition ?? null).toBeNull();
  });

  for (const [entityType, operation] of [
    ['billingAutomation', 'billingAutomations/getAll'],
    ['export', 'exports/getAll'],
  ] as const) {
    it(`${entityType}: a listing polled after other streams is not asked for when it cannot arrive in time`, async () => {
      const prices = streamOf('productPrice');
      const listing = streamOf(entityType);
      const products = prices.products!.length;
      // The prices take `products` answers; the listing's one would end half an answer late.
      const first = await job([prices, listing], products + 0.5);
      expect(asked('products/getPricing')).toHaveLength(products);
      expect(asked(operation)).toHaveLength(0);
      expect(slow.aborted()).toBe(0);
      expect(first.outcomes[1]).toEqual({
        kind: 'polled',
        streamId: listing.streamId,
        caughtUp: false,
      });

      const second = await job([listing]);
      expect(second.outcomes).toMatchObject([{ kind: 'polled', caughtUp: true }]);
      expect(asked(operation)).toHaveLength(1);
    });
  }

  it('sweep: stops between its requests, and the next job asks for each id once', async () => {
    const resources = streamOf('resource');
    expect((await job([resources])).outcomes).toMatchObject([{ caughtUp: true }]);
    // 2,500 stored ids the connector no longer knows, beside the live ones: three requests.
    const store = h.deps('chain').store;
    const now = h.clock.now();
    const gone = Array.from({ length: 2_500 }, () => randomUUID());
    await store.putSnapshots(
      resources.streamId,
      gone.map((id) => ({ entityId: id, hash: 'stale', record: { Id: id }, updatedAt: now })),
    );
    await patchState(resources.streamId, { lastSweepAt: 0 });
    slow.asked.length = 0;

    // The live window's answer and one sweep request fit; a second would end half an answer late.
    const first = await job([resources], 2.5);
    expect(slow.aborted()).toBe(0);
    expect(asked('resources/getAll', 'ResourceIds')).toHaveLength(1);
    expect(first.outcomes).toMatchObject([{ kind: 'polled', caughtUp: false }]);

    const second = await job([resources]);
    expect(second.outcomes).toMatchObject([{ kind: 'polled', caughtUp: true }]);
    const sweeps = asked('resources/getAll', 'ResourceIds');
    expect(sweeps).toHaveLength(3);
    const ids = sweeps.flatMap((r) => r.body.ResourceIds as string[]);
    // Every stored id asked for once across the two jobs.
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(gone));
    expect(slow.aborted()).toBe(0);
  }, 60_000);

  it('deletions: stops between its windows, and the next job reads each once', async () => {
    const customers = streamOf('customer');
    expect((await job([customers])).outcomes).toMatchObject([{ caughtUp: true }]);
    // A deletion read last run 400 days ago: windows of three months, one request each.
    await patchState(customers.streamId, { lastSweepAt: h.clock.now() - 400 * DAY_MS });
    slow.asked.length = 0;

    const first = await job([customers], 2.5);
    expect(slow.aborted()).toBe(0);
    expect(asked('customers/getAll', 'DeletedUtc')).toHaveLength(1);
    expect(first.outcomes).toMatchObject([{ kind: 'polled', caughtUp: false }]);

    const second = await job([customers]);
    expect(second.outcomes).toMatchObject([{ kind: 'polled', caughtUp: true }]);
    const windows = asked('customers/getAll', 'DeletedUtc').map(
      (r) => (r.body.DeletedUtc as { StartUtc: string }).StartUtc,
    );
    // 400 days in windows of three months: five, each read once.
    expect(windows).toHaveLength(5);
    expect(new Set(windows).size).toBe(windows.length);
    expect(slow.aborted()).toBe(0);
  }, 60_000);
});
