import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import {
  EndpointScheduler,
  SLOT_DEFER_MS,
  SLOW_ENDPOINT_WAIT_MS,
} from '../../shared/webhooks/endpoint-scheduler.ts';
import { heldWork } from './support/held-work.ts';

// A batch waits for its deliveries; one waiting at a slow endpoint holds the batch, and with it
// the worker other endpoints' deliveries need. What waits there is deferred instead.
describe('deliveries waiting at a slow endpoint', () => {
  it('start and find the endpoint held (they defer themselves) once a request and they have waited long enough', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const scheduler = new EndpointScheduler(clock);
    const inFlight = heldWork();
    const running = scheduler.run('slow', 'a', { maxConcurrency: 1 }, inFlight.run);
    const waiting = heldWork();
    const queued = scheduler.run('slow', 'b', { maxConcurrency: 1 }, waiting.run);
    await clock.advance(SLOW_ENDPOINT_WAIT_MS - 1);
    expect(waiting.started).toBe(false);
    expect(scheduler.holdUntil('slow')).toBeUndefined();
    await clock.advance(1);
    expect(waiting.started).toBe(true);
    expect(scheduler.holdUntil('slow')).toBe(clock.now() + SLOT_DEFER_MS);
    // While it is held, more work starts at once whatever the limit: it sends nothing.
    const later = heldWork();
    const next = scheduler.run('slow', 'c', { maxConcurrency: 1 }, later.run);
    await clock.advance(0);
    expect(later.started).toBe(true);
    waiting.finish();
    later.finish();
    await Promise.all([queued, next]);
    // Still stuck after the deferral: the next one lasts twice as long.
    await clock.advance(SLOT_DEFER_MS);
    const again = heldWork();
    const third = scheduler.run('slow', 'd', { maxConcurrency: 1 }, again.run);
    await clock.advance(SLOW_ENDPOINT_WAIT_MS);
    expect(again.started).toBe(true);
    expect(scheduler.holdUntil('slow')).toBe(clock.now() + 2 * SLOT_DEFER_MS);
    again.finish();
    inFlight.finish();
    await Promise.all([running, third]);
  });

  it('start over from the shortest deferral once a request is answered fast', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const scheduler = new EndpointScheduler(clock);
    const stuck = heldWork();
    const stuckRun = scheduler.run('e', 'a', { maxConcurrency: 1 }, stuck.run);
    const queued = heldWork();
    const queuedRun = scheduler.run('e', 'b', { maxConcurrency: 1 }, queued.run);
    await clock.advance(SLOW_ENDPOINT_WAIT_MS);
    expect(scheduler.holdUntil('e')).toBe(clock.now() + SLOT_DEFER_MS);
    queued.finish();
    stuck.finish();
    await Promise.all([stuckRun, queuedRun]);
    await clock.advance(SLOT_DEFER_MS);
    // A fast answer: the endpoint is well again.
    await scheduler.run('e', 'c', { maxConcurrency: 1 }, async () => clock.advance(10));
    const slowAgain = heldWork();
    const slowRun = scheduler.run('e', 'd', { maxConcurrency: 1 }, slowAgain.run);
    const behind = heldWork();
    const behindRun = scheduler.run('e', 'f', { maxConcurrency: 1 }, behind.run);
    await clock.advance(SLOW_ENDPOINT_WAIT_MS);
    expect(scheduler.holdUntil('e')).toBe(clock.now() + SLOT_DEFER_MS);
    behind.finish();
    slowAgain.finish();
    await Promise.all([slowRun, behindRun]);
  });

  it('wait as long as they must at an endpoint that answers fast, however long the line', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const scheduler = new EndpointScheduler(clock);
    const works = Array.from({ length: 30 }, heldWork);
    const runs = works.map((work, n) =>
      scheduler.run('fast', `s${n}`, { maxConcurrency: 1 }, work.run),
    );
    // One answer every 100 ms: the last waits 3 s in line, no request runs long.
    for (const work of works) {
      await clock.advance(0);
      expect(work.started).toBe(true);
      await clock.advance(100);
      work.finish();
    }
    await Promise.all(runs);
    expect(scheduler.holdUntil('fast')).toBeUndefined();
  });
});
