import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BULK_QUIET_MS, BulkPageWork } from '../../shared/local/bulk-page-work.ts';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** Whether `promise` has settled once pending microtasks ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  await vi.advanceTimersByTimeAsync(0);
  return done;
}

describe('BulkPageWork: the bulk lane waits for the bulk reading', () => {
  const running = new AbortController().signal;

  it('lets the lane receive at once while no page was ever held', async () => {
    const work = new BulkPageWork();
    expect(await settled(work.idle(running))).toBe(true);
  });

  it('holds the lane while a page is in hand, and until the quiet time after the last one', async () => {
    const work = new BulkPageWork();
    const first = work.begin();
    const second = work.begin();
    const waiting = work.idle(running);
    first();
    expect(await settled(waiting)).toBe(false);
    second();
    await vi.advanceTimersByTimeAsync(BULK_QUIET_MS - 1);
    expect(await settled(waiting)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(waiting)).toBe(true);
    expect(work.isIdle).toBe(true);
  });

  it('keeps the lane waiting when the next page comes within the quiet time', async () => {
    const work = new BulkPageWork();
    work.begin()();
    const waiting = work.idle(running);
    await vi.advanceTimersByTimeAsync(BULK_QUIET_MS / 2);
    const next = work.begin();
    await vi.advanceTimersByTimeAsync(BULK_QUIET_MS * 10);
    expect(await settled(waiting)).toBe(false);
    next();
    await vi.advanceTimersByTimeAsync(BULK_QUIET_MS);
    expect(await settled(waiting)).toBe(true);
  });

  it('counts a page once however often its end is told', async () => {
    const work = new BulkPageWork();
    const first = work.begin();
    const second = work.begin();
    first();
    first();
    await vi.advanceTimersByTimeAsync(BULK_QUIET_MS * 2);
    expect(work.isIdle).toBe(false);
    second();
    await vi.advanceTimersByTimeAsync(BULK_QUIET_MS);
    expect(work.isIdle).toBe(true);
  });

  it('lets a stopping lane go at once', async () => {
    const work = new BulkPageWork();
    work.begin();
    const stop = new AbortController();
    const waiting = work.idle(stop.signal);
    expect(await settled(waiting)).toBe(false);
    stop.abort();
    expect(await settled(waiting)).toBe(true);
    expect(await settled(work.idle(stop.signal))).toBe(true);
  });
});
