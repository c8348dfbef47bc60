import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITY_TYPES } from '../../shared/changes/entity-types.ts';
import { CONNECTOR_REQUESTS_PER_WINDOW } from '../../shared/connector/rate-limit.ts';
import { pollConnectionStreams } from '../../shared/polling/poll-connection.ts';
import type { StreamDefinition } from '../../shared/polling/poll-context.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../shared/polling/poll-settings.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import { nextPollTime } from '../../shared/polling/schedule.ts';
import { nextSlotTime, pollSlotsOf, streamPhasesMs } from '../../shared/polling/stream-phase.ts';
import { sweepIntervalOf } from '../../shared/polling/sweep-slots.ts';
import { type PollHarness, startPollHarness } from './poll-harness.ts';

const MINUTE = 60_000;
const products = (count: number) =>
  Array.from({ length: count }, (_, index) => ({ productId: `p${index}`, timeZone: 'UTC' }));

describe('phases spread by the requests of each stream', () => {
  it('gives a stream polled in slots points evenly apart and the others the points left, in order', () => {
    // Five points of 12 s: the second stream's slots at points 1 and 4 (12 and 48 s), the others
    // at the points left.
    expect(streamPhasesMs([1, 2, 1, 1], [MINUTE, MINUTE, MINUTE, MINUTE])).toEqual([
      0, 12_000, 24_000, 36_000,
    ]);
    // Intervals under 30 s are not spread.
    expect(streamPhasesMs([1, 3], [5_000, 5_000])).toEqual([0, 0]);
  });

  it('polls a product prices stream in a slot per product from 30 s, and any other stream once', () => {
    const prices = { spec: { strategy: 'product-prices' }, products: products(3) };
    expect(pollSlotsOf({ ...prices, intervalMs: MINUTE })).toBe(3);
    expect(pollSlotsOf({ ...prices, intervalMs: 5_000 })).toBe(1);
    expect(
      pollSlotsOf({ spec: { strategy: 'windowed' }, intervalMs: MINUTE, products: products(3) }),
    ).toBe(1);
  });

  it('is due at its next slot at least half a slot away, a round being exactly one interval', () => {
    expect(nextSlotTime(125_000, MINUTE, 5_000, 3)).toBe(145_000);
    expect(nextSlotTime(146_000, MINUTE, 5_000, 3)).toBe(165_000);
    expect(nextSlotTime(166_000, MINUTE, 5_000, 3)).toBe(185_000);
    // Seven slots of a minute: whole milliseconds, the eighth slot one interval after the first.
    const seven = [0];
    for (let slot = 1; slot <= 7; slot++) seven.push(nextSlotTime(seven.at(-1)!, MINUTE, 0, 7));
    expect(seven.at(-1)).toBe(MINUTE);
    expect(seven.every(Number.isInteger)).toBe(true);
  });

  /**
   * The instants of one minute's requests of a property polled every minute, as the connector
   * counts them: each stream's one a poll, loyalty memberships' two (the window and the
   * classification of its deleted ones), one per product priced.
   */
  function minuteOfRequests(definitions: readonly StreamDefinition[]): number[] {
    const at: number[] = [];
    for (const definition of definitions) {
      const slots = pollSlotsOf(definition);
      let slot = definition.phaseMs ?? 0;
      for (let k = 0; k < slots; k++) {
        at.push(slot % MINUTE);
        slot = nextPollTime(definition, slot);
      }
      if (definition.spec.entityType === 'loyaltyMembership') at.push(definition.phaseMs ?? 0);
    }
    return at;
  }

  /** The most requests any 30 s holds, each allowed to arrive up to `lateMs` after its instant. */
  function busiestHalfMinute(at: readonly number[], lateMs: number): number {
    let busiest = 0;
    for (const start of at)
      for (const shift of [0, lateMs]) {
        const from = start + shift;
        const held = at.filter((t) => {
          const since = (((t - from) % MINUTE) + MINUTE) % MINUTE;
          return since < 30_000 + lateMs;
        }).length;
        busiest = Math.max(busiest, held);
      }
    return busiest;
  }

  it('keeps a property polled every minute at 5 % of its budget in any 30 s, a sweep included', () => {
    const settings = pollSettingsFromEnv(
      { POLL_INTERVAL: '1m', POLL_ENTITIES: ENTITY_TYPES.join(',') },
      0,
    );
    const definitions = streamDefinitions('main', settings, { products: products(3) });
    const at = minuteOfRequests(definitions);
    expect(at).toHaveLength(16);
    // The local loop's ticks (250 ms) move a poll's start a little: 300 ms of lateness allowed.
    expect(busiestHalfMinute(at, 300)).toBeLessThanOrEqual(9);
    // A windowed stream's sweep (or deletion read) adds a request to its poll.
    for (const swept of definitions.filter((d) => sweepIntervalOf(d.spec) !== undefined)) {
      const withSweep = [...at, swept.phaseMs ?? 0];
      expect(busiestHalfMinute(withSweep, 300) / CONNECTOR_REQUESTS_PER_WINDOW).toBeLessThanOrEqual(
        0.05,
      );
    }
  });
});

describe('product prices polled in slots', () => {
  let h: PollHarness;
  beforeAll(async () => {
    h = await startPollHarness();
  });
  afterAll(() => h.close());

  /** The harness's prices stream every minute, from the next whole minute, with three products. */
  function pricesEveryMinute(streamId: string): StreamDefinition {
    const prices = h.definitions().find((d) => d.spec.entityType === 'productPrice')!;
    expect(prices.products!.length).toBeGreaterThanOrEqual(3);
    return {
      ...prices,
      streamId,
      intervalMs: MINUTE,
      phaseMs: 0,
      products: prices.products!.slice(0, 3),
    };
  }
  /** Moves the clock to the next whole minute (the slots' round starts there); returns it. */
  async function nextWholeMinute(): Promise<number> {
    await h.clock.advance(MINUTE - (h.clock.now() % MINUTE));
    return h.clock.now();
  }
  /** products/getPricing requests the simulator logged after the first `from` requests. */
  const pricedProducts = (from: number) =>
    h.sim.controls
      .requestLog()
      .slice(from)
      .filter((entry) => entry.operation === 'products/getPricing').length;

  it('prices one product a slot in the local loop, the round ending with the third', async () => {
    const definition = pricesEveryMinute('sim:prices-in-slots');
    const deps = h.deps('chain');
    const roundStart = await nextWholeMinute();
    for (const [slot, position] of [
      [0, definition.products![0]!.productId],
      [1, definition.products![1]!.productId],
    ] as const) {
      const requests = h.sim.controls.requestLog().length;
      expect(await pollStream(definition, deps, 'test')).toMatchObject({ kind: 'polled' });
      expect(pricedProducts(requests)).toBe(1);
      const state = (await deps.store.getStream(definition.streamId))!;
      expect(state.pricePosition).toBe(position);
      expect(state.nextDueAt).toBe(roundStart + (slot + 1) * 20_000);
      // The first sync (the first round) is done only once every product is priced.
      expect(state.initialSyncDone).toBe(false);
      await h.clock.advance(state.nextDueAt - h.clock.now());
    }
    const requests = h.sim.controls.requestLog().length;
    expect(await pollStream(definition, deps, 'test')).toMatchObject({ kind: 'polled' });
    expect(pricedProducts(requests)).toBe(1);
    const state = (await deps.store.getStream(definition.streamId))!;
    expect(state.pricePosition ?? null).toBeNull();
    expect(state.initialSyncDone).toBe(true);
    expect(state.nextDueAt).toBe(roundStart + MINUTE);
  });

  it('prices every product whose slot is due by an AWS job horizon, and is due a round later', async () => {
    const definition = pricesEveryMinute('sim:prices-by-horizon');
    const deps = h.deps('chain');
    const roundStart = await nextWholeMinute();
    const requests = h.sim.controls.requestLog().length;
    const outcome = await pollStream(definition, { ...deps, dueBy: roundStart + MINUTE }, 'test');
    expect(outcome).toMatchObject({ kind: 'polled' });
    expect(pricedProducts(requests)).toBe(3);
    const state = (await deps.store.getStream(definition.streamId))!;
    expect(state.initialSyncDone).toBe(true);
    // Not due at the next slot: its product was priced in this job.
    expect(state.nextDueAt).toBe(roundStart + MINUTE);
  });

  it('prices every slot due by the planner next run in a connection job, the way AWS polls', async () => {
    const definition = pricesEveryMinute('sim:prices-in-a-job');
    const deps = h.deps('chain');
    const plannedAt = await nextWholeMinute();
    const requests = h.sim.controls.requestLog().length;
    const job = await pollConnectionStreams(
      [definition.streamId],
      [definition],
      deps,
      'job',
      plannedAt + MINUTE,
    );
    expect(job.outcomes).toMatchObject([{ kind: 'polled' }]);
    expect(pricedProducts(requests)).toBe(3);
    // The connection's next job: a minute on, not at the next slot.
    expect(job.nextDueAt).toBe(plannedAt + MINUTE);
    // A job planned for less than a minute takes the slots due by its horizon only.
    await h.clock.advance(MINUTE);
    const again = h.sim.controls.requestLog().length;
    await pollConnectionStreams(
      [definition.streamId],
      [definition],
      deps,
      'job',
      h.clock.now() + 30_000,
    );
    expect(pricedProducts(again)).toBe(2);
  });

  it('prices the next product at its slot after one the connector refuses', async () => {
    const base = pricesEveryMinute('sim:prices-refused-in-slot');
    const gone = { productId: '00000000-0000-4000-8000-000000000001', timeZone: 'UTC' };
    const definition = { ...base, products: [gone, ...base.products!.slice(0, 2)] };
    const deps = h.deps('chain');
    const roundStart = await nextWholeMinute();
    const outcome = await pollStream(definition, deps, 'test');
    expect(outcome).toMatchObject({ kind: 'failed', error: expect.stringContaining('ProductId') });
    const state = (await deps.store.getStream(definition.streamId))!;
    // Its slot's failure in part: the next product's slot keeps its time, with no backoff.
    expect(state.nextDueAt).toBe(roundStart + 20_000);
    expect(state.pricePosition).toBe(gone.productId);
    await h.clock.advance(20_000);
    expect(await pollStream(definition, deps, 'test')).toMatchObject({ kind: 'polled' });
    expect((await deps.store.getStream(definition.streamId))!.consecutiveFailures).toBe(0);
  });
});
