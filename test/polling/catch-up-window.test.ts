import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BacklogGauge } from '../../shared/polling/backlog-gauge.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import { CATCH_UP_LEAST_MS, isLiveWindow } from '../../shared/polling/windows.ts';
import { type PagedCustomerStream, startPagedCustomerStream } from './paged-customer-stream.ts';

/** A gauge the test sets: whether the undelivered backlog is above its bound. */
class SetGauge implements BacklogGauge {
  above = false;
  async aboveBound(): Promise<boolean> {
    return this.above;
  }
}

/**
 * design.md, Rules of behaviour: live polls go first; "first syncs, backfills, catch-up
 * windows and sweeps use what remains", and detection slows while the undelivered backlog is
 * above its bound. A caught-up stream whose poller was away (an outage, a stopped bridge) reads
 * everything since in one window reaching the present: that window is catch-up work, not a live
 * poll, however it ends. Simulator, dynalite and the customer stream (POLL_INTERVAL 1s), pages of 10.
 */
describe('a window from long ago that reaches the present', () => {
  let h: PagedCustomerStream;
  const gauge = new SetGauge();

  beforeAll(async () => {
    h = await startPagedCustomerStream();
    h.deps.backlog = gauge;
    expect(await pollStream(h.definition, h.deps, 'test')).toMatchObject({ caughtUp: true });
  }, 60_000);
  afterAll(() => h.close());

  const model = () => h.sim.controls.model;
  const updateFirst = (count: number, notes: string) => {
    const ids = [...model().customers.all()]
      .filter((e) => e.record.IsActive)
      .slice(0, count)
      .map((e) => e.record.Id);
    for (const id of ids) model().update(model().customers, 'customer', id, { Notes: notes });
    return ids;
  };
  const published = () => h.deps.publisher.events.length;

  it('is read at once by a live poll, backlog or not', async () => {
    gauge.above = true;
    const ids = updateFirst(3, 'live');
    await h.clock.advance(1000);
    const before = published();
    expect(await pollStream(h.definition, h.deps, 'test')).toMatchObject({
      kind: 'polled',
      caughtUp: true,
    });
    expect(h.deps.publisher.events.slice(before).map((e) => e.subject)).toEqual(
      expect.arrayContaining(ids),
    );
  });

  it('waits while the backlog is above its bound after an outage, then reads every change', async () => {
    gauge.above = true;
    await h.clock.advance(2 * 60 * 60_000);
    const ids = updateFirst(25, 'after two hours away');
    await h.clock.advance(1000);
    const before = published();
    const held = await pollStream(h.definition, h.deps, 'test');
    expect(held).toMatchObject({ kind: 'polled', caughtUp: false });
    expect(published()).toBe(before);

    gauge.above = false;
    expect(await pollStream(h.definition, h.deps, 'test')).toMatchObject({
      kind: 'polled',
      caughtUp: true,
    });
    expect(new Set(h.deps.publisher.events.slice(before).map((e) => e.subject))).toEqual(
      new Set(ids),
    );
  });

  it('judges a window by how far behind its watermark is, not by its overlap', () => {
    const end = Date.UTC(2026, 0, 1, 12);
    const window = (behindMs: number, overlapMs: number) => ({
      startUtc: new Date(end - behindMs - overlapMs).toISOString(),
      endUtc: new Date(end).toISOString(),
    });
    expect(isLiveWindow(window(5_000, 5_000), 5_000, 5_000)).toBe(true);
    // A long overlap (POLL_OVERLAP up to 1d) does not turn live polls into catch-up work.
    expect(isLiveWindow(window(5_000, 86_400_000), 86_400_000, 5_000)).toBe(true);
    expect(isLiveWindow(window(CATCH_UP_LEAST_MS, 5_000), 5_000, 5_000)).toBe(true);
    expect(isLiveWindow(window(CATCH_UP_LEAST_MS + 1, 5_000), 5_000, 5_000)).toBe(false);
    // A stream polled every hour is live ten hours behind, not past that.
    expect(isLiveWindow(window(10 * 3_600_000, 5_000), 5_000, 3_600_000)).toBe(true);
    expect(isLiveWindow(window(10 * 3_600_000 + 1, 5_000), 5_000, 3_600_000)).toBe(false);
  });
});
