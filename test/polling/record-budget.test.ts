import { getEventListeners } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import { RecordBudget, type RecordGrant } from '../../shared/polling/record-budget.ts';
import { budgetedPages } from '../../shared/polling/strategies/paged-records.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import { customerStream, POLL_TEST_START_MS } from './poll-harness.ts';

/** Whether a promise has settled after the pending microtasks ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('RecordBudget', () => {
  it('holds a claim that does not fit until enough is given back, and serves a small one past a large one', async () => {
    const budget = new RecordBudget(1_000);
    const first = await budget.take(800);
    const large = budget.take(500);
    const small = budget.take(200);
    expect(await settled(large)).toBe(false);
    expect(await settled(small)).toBe(true);
    expect(budget.inFlight).toBe(1_000);
    first.release();
    first.release();
    expect(await settled(large)).toBe(true);
    expect(budget.inFlight).toBe(700);
  });

  it('gives back the unused part of a claim at once and takes a larger page without waiting', async () => {
    const budget = new RecordBudget(1_000);
    const grant = await budget.take(1_000);
    const waiting = budget.take(400);
    grant.resize(600);
    expect(await settled(waiting)).toBe(true);
    // The page held more than claimed: it is in memory, so the claim grows past the capacity.
    grant.resize(900);
    expect(budget.inFlight).toBe(1_300);
    expect(await settled(budget.take(1))).toBe(false);
  });

  it('serves a claim larger than the whole budget once nothing else is held', async () => {
    const budget = new RecordBudget(1_000);
    const held = await budget.take(10);
    const huge = budget.take(5_000);
    expect(await settled(huge)).toBe(false);
    held.release();
    expect(await settled(huge)).toBe(true);
  });

  it('drops a waiting claim when its poll is aborted', async () => {
    const budget = new RecordBudget(1_000);
    await budget.take(1_000);
    const stop = new AbortController();
    const waiting = budget.take(100, stop.signal);
    stop.abort(new Error('stopping'));
    await expect(waiting).rejects.toThrow('stopping');
    expect(budget.inFlight).toBe(1_000);
  });

  it('leaves no listener on the poll’s signal once a waiting claim is granted', async () => {
    const budget = new RecordBudget(1_000);
    const held = await budget.take(1_000);
    const signal = new AbortController().signal;
    const waiting = budget.take(100, signal);
    expect(getEventListeners(signal, 'abort')).toHaveLength(1);
    held.release();
    await waiting;
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('expects a stream’s page to hold what its last page held, else its entity type’s, else a full page', () => {
    const budget = new RecordBudget();
    expect(budget.estimate('a:customer', 'customer', 1_000)).toBe(1_000);
    budget.observe('a:customer', 'customer', 3);
    expect(budget.estimate('a:customer', 'customer', 1_000)).toBe(3);
    expect(budget.estimate('b:customer', 'customer', 1_000)).toBe(3);
    budget.observe('b:customer', 'customer', 0);
    expect(budget.estimate('b:customer', 'customer', 1_000)).toBe(1);
    expect(budget.estimate('a:customer', 'customer', 1_000)).toBe(3);
    expect(budget.estimate('a:resource', 'resource', 100)).toBe(100);
  });
});

describe('budgetedPages', () => {
  it('claims each page before it is read, and nothing after the last page', async () => {
    const budget = new RecordBudget(10);
    async function* source() {
      yield {
        records: [{ Id: 'a' }, { Id: 'b' }, { Id: 'c' }],
        cursor: null,
        count: 5,
        last: true,
        passedOver: 0,
      };
    }
    const grants = new Set<RecordGrant>();
    const pages = budgetedPages(source(), {
      budget,
      streamId: 's:customer',
      entityType: 'customer',
      requested: 5,
      grants,
    });
    const first = await pages.next();
    expect(first.done).toBe(false);
    expect(budget.inFlight).toBe(3);
    // The budget is full now; the source has nothing after its last page, so no claim waits.
    await budget.take(7);
    expect(await settled(pages.next())).toBe(true);
    expect(grants.size).toBe(1);
  });

  it('holds what a page kept, and expects the next page as large as this one arrived', async () => {
    const budget = new RecordBudget(1000);
    async function* source() {
      const page = { cursor: 'c', count: 500, last: false, passedOver: 498 };
      yield { ...page, records: [{ Id: 'a' }, { Id: 'b' }] };
      yield { ...page, records: [], passedOver: 500, last: true };
    }
    const pages = budgetedPages(source(), {
      budget,
      streamId: 's:customer',
      entityType: 'customer',
      requested: 500,
      grants: new Set<RecordGrant>(),
    });
    await pages.next();
    expect(budget.inFlight).toBe(2);
    expect(budget.estimate('s:customer', 'customer', 500)).toBe(500);
  });
});

describe('windowed polls sharing a record budget', () => {
  let sim: RunningSimulator;
  const clock = new ManualClock(POLL_TEST_START_MS);

  beforeAll(async () => {
    sim = await startSimulator({ seed: 5, size: 'small', clock, rateLimit: false });
  });
  afterAll(() => sim.close());

  it('hold at most the budget in pages while six first syncs run at once, read every record and give it all back', async () => {
    const budget = new RecordBudget(100);
    let peak = 0;
    const take = budget.take.bind(budget);
    budget.take = async (amount, signal) => {
      const grant: RecordGrant = await take(amount, signal);
      peak = Math.max(peak, budget.inFlight);
      return grant;
    };
    const store = new MemoryStateStore();
    const { definition, deps } = customerStream(sim, clock, store, 25);
    const streams = Array.from({ length: 6 }, (_, n) => ({
      ...definition,
      streamId: `hotel-${n}:customer`,
    }));
    const outcomes = await Promise.all(
      streams.map((stream) => pollStream(stream, { ...deps, records: budget }, 'poller')),
    );
    expect(outcomes.map((o) => o.kind)).toEqual(Array(6).fill('polled'));
    const customers = sim.controls.model.customers.size;
    for (const stream of streams) {
      expect((await store.getStream(stream.streamId))?.recordsRead).toBe(customers);
    }
    // Pages of 25 against 100: four pages in flight at most, over six streams that each read
    // one page ahead (without the budget, twelve).
    expect(peak).toBeLessThanOrEqual(100);
    expect(peak).toBeGreaterThanOrEqual(75);
    expect(customers).toBeGreaterThan(6 * 25);
    expect(budget.inFlight).toBe(0);
  });
});
