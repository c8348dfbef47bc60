import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { activePass } from '../../shared/polling/backfill-state.ts';
import { stateHandle } from '../../shared/polling/poll-context.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import { runBackfillPass } from '../../shared/polling/strategies/backfill-pass.ts';
import {
  changeEveryCustomer,
  type PagedCustomerStream,
  startPagedCustomerStream,
} from './paged-customer-stream.ts';
import { runOnClock, type SlowConnector, slowSimulatorConnector } from './slow-connector.ts';

/** How long each page takes to come back (on the test's clock). */
const PAGE_MS = 400;
const DAY_MS = 24 * 60 * 60_000;

/**
 * A backfill pass over 60 customers read by pages of 10 (the simulator, dynalite), each page
 * answered PAGE_MS after it is asked for, in a slice of one second (the stream's interval): the
 * slice ends while the page after the one in hand is on its way (read ahead).
 */
describe('a backfill pass slice that ends with a page read ahead', () => {
  let h: PagedCustomerStream;
  let slow: SlowConnector;

  beforeEach(async () => {
    h = await startPagedCustomerStream();
    await changeEveryCustomer(h, 'recent');
    expect(await pollStream(h.definition, h.deps, 'first-sync')).toMatchObject({
      caughtUp: true,
    });
    slow = slowSimulatorConnector(h.sim, h.clock, PAGE_MS);
  }, 60_000);

  afterEach(async () => {
    await slow.client.close();
    await h.close();
  });

  /** The stream's state with a pass in its last window, which holds the 60 customers. */
  async function passInLastWindow() {
    const now = h.clock.now();
    const endUtc = new Date(now).toISOString();
    const stored = (await h.deps.store.getStream(h.definition.streamId))!;
    const state = stateHandle(h.deps.store, stored);
    // 6 pages of 10 and an empty one.
    await state.save({
      backfill: {
        kind: 'pass',
        jobId: 'pass-1',
        emit: false,
        startedAt: now,
        endUtc,
        watermark: null,
        window: {
          startUtc: new Date(now - 80 * DAY_MS).toISOString(),
          endUtc,
          cursor: null,
          count: 10,
          pages: 0,
        },
        recordsRead: 0,
        eventsPublished: 0,
        doneAt: null,
      },
    });
    return state;
  }

  const passWindowPages = async () =>
    activePass((await h.deps.store.getStream(h.definition.streamId))!)?.window?.pages;

  it('takes the page read ahead instead of dropping it, so no page is asked for twice', async () => {
    const { spec } = h.definition;
    if (spec.strategy !== 'windowed') throw new Error('the customer stream is windowed');
    const now = h.clock.now();
    const state = await passInLastWindow();
    const sliceEndsAt = now + Math.max(1_000, h.definition.intervalMs);
    let published = 0;
    const deps = {
      ...h.deps,
      client: slow.client,
      observer: {
        // The second page is still being processed when the slice ends: the third, asked for as
        // the second arrived (at 800 ms), is on its way then.
        async afterPublish() {
          if (++published !== 2) return;
          while (h.clock.now() < sliceEndsAt) await new Promise((r) => setTimeout(r, 1));
        },
      },
    };
    const result = await runOnClock(h.clock, slow, () =>
      runBackfillPass(h.definition, spec, deps, state, now),
    );
    expect(result.done).toBe(false);
    // Every page asked for was stored (its cursor saved): the one read ahead was taken.
    expect(slow.asked).toHaveLength(3);
    expect(await passWindowPages()).toBe(slow.asked.length);
    expect(slow.aborted()).toBe(0);
  });

  it('asks for no page that cannot arrive before the invocation deadline', async () => {
    const { spec } = h.definition;
    if (spec.strategy !== 'windowed') throw new Error('the customer stream is windowed');
    const now = h.clock.now();
    const state = await passInLastWindow();
    // A slice of a minute, cut by the deadline: two pages fit, a third would arrive late.
    const definition = { ...h.definition, intervalMs: 60_000 };
    const deps = { ...h.deps, client: slow.client, deadline: now + 2.5 * PAGE_MS };
    await runOnClock(h.clock, slow, () => runBackfillPass(definition, spec, deps, state, now));
    expect(slow.asked).toHaveLength(2);
    expect(await passWindowPages()).toBe(2);
  });
});
