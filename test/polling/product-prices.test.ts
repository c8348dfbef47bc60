import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import { priceHorizon } from '../../shared/polling/strategies/product-prices.ts';
import { priceKey } from '../../shared/simulator/pricing.ts';
import { type PollHarness, startPollHarness } from './poll-harness.ts';

describe('product prices with a product the connector refuses', () => {
  let h: PollHarness;
  beforeAll(async () => {
    h = await startPollHarness();
  });
  afterAll(() => h.close());

  it('prices the products after it, and fails the poll naming the refusal', async () => {
    const prices = h.definitions().find((d) => d.spec.entityType === 'productPrice')!;
    const known = prices.products!;
    expect(known.length).toBeGreaterThan(0);
    // A product deleted at the connector since it was configured: first in the list.
    const gone = { productId: randomUUID(), timeZone: 'UTC' };
    const definition = { ...prices, streamId: 'sim:refused-product', products: [gone, ...known] };

    const outcome = await pollStream(definition, h.deps('chain'), 'test');
    expect(outcome).toMatchObject({ kind: 'failed', error: expect.stringContaining('ProductId') });
    let stored = 0;
    for await (const page of h.deps('chain').store.scanSnapshots(definition.streamId))
      stored += page.length;
    // Seven days of each product that exists.
    expect(stored).toBe(known.length * 7);
  });

  it('keeps polling the other products at the stream interval, past its first sync, while one stays refused', async () => {
    const prices = h.definitions().find((d) => d.spec.entityType === 'productPrice')!;
    const gone = { productId: randomUUID(), timeZone: 'UTC' };
    const definition = {
      ...prices,
      streamId: 'sim:refused-product-again',
      products: [gone, ...prices.products!],
    };
    const deps = h.deps('chain');
    for (let poll = 1; poll <= 3; poll++) {
      const startedAt = h.clock.now();
      const outcome = await pollStream(definition, deps, 'test');
      expect(outcome).toMatchObject({
        kind: 'failed',
        error: expect.stringContaining('ProductId'),
      });
      const state = (await deps.store.getStream(definition.streamId))!;
      // Due again at its interval, not after a backoff growing with each poll: the other
      // products' prices are news to follow at the stream's pace.
      expect(state.nextDueAt - startedAt).toBeLessThanOrEqual(definition.intervalMs);
      expect(state.consecutiveFailures).toBe(poll);
      expect(state.lastError).toContain('ProductId');
      // Its first sync is done: prices of days entering the horizon are news.
      expect(state.initialSyncDone).toBe(true);
      await h.clock.advance(definition.intervalMs);
    }
  });

  it('prices the products after one whose pricing breaks the contract, keeping its stored prices', async () => {
    const prices = h.definitions().find((d) => d.spec.entityType === 'productPrice')!;
    const [broken, changed] = prices.products!;
    expect(changed).toBeDefined();
    const definition = { ...prices, streamId: 'sim:broken-pricing' };
    const deps = h.deps('chain');
    expect(await pollStream(definition, deps, 'test')).toMatchObject({ kind: 'polled' });
    const storedPrices = async (productId: string) => {
      const found = [];
      for await (const page of deps.store.scanSnapshots(definition.streamId))
        found.push(...page.filter((s) => s.entityId.startsWith(`${productId}:`)));
      return found;
    };
    const before = await storedPrices(broken!.productId);
    expect(before).toHaveLength(7);

    // The first product's first day is priced NaN (sent as null: NetValue must be a number);
    // the second product's first day changes price.
    const model = h.sim.controls.model;
    const day = (target: typeof broken) =>
      Date.parse(priceHorizon(h.clock.now(), 7, target!.timeZone).first);
    model.priceOverrides.set(priceKey(broken!.productId, day(broken)), {
      gross: Number.NaN,
      updatedMs: h.clock.now(),
    });
    model.priceOverrides.set(priceKey(changed!.productId, day(changed)), {
      gross: 12_345,
      updatedMs: h.clock.now(),
    });
    h.publisher.events.length = 0;

    const outcome = await pollStream(definition, deps, 'test');
    expect(outcome).toMatchObject({
      kind: 'failed',
      error: expect.stringMatching(/products\/getPricing: .*BaseAmountPrices\[0\]\.NetValue/),
    });
    expect(h.publisher.events.map((e) => `${e.type} ${e.subject}`)).toContain(
      `productPrice.updated ${changed!.productId}:${new Date(day(changed)).toISOString()}`,
    );
    expect(await storedPrices(broken!.productId)).toEqual(before);
    model.priceOverrides.delete(priceKey(broken!.productId, day(broken)));
    model.priceOverrides.delete(priceKey(changed!.productId, day(changed)));
  });
});
