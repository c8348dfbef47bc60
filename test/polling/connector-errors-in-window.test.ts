import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import type { StreamState } from '../../shared/state/state-store.ts';
import { driveClock } from '../support/drive-clock.ts';
import { type PagedCustomerStream, startPagedCustomerStream } from './paged-customer-stream.ts';

/**
 * design.md, Connector errors, met in the middle of a window (simulator faults, dynalite, pages
 * of 10): a failed window keeps its watermark and the cursor of the last page stored, the
 * stream backs off, and the next run resumes at the next page with every change reported once;
 * the timeout error halves Count for the rest of the window; a 429 waits for its Retry-After.
 */
describe('connector errors in the middle of a window', () => {
  let h: PagedCustomerStream;
  let synced: StreamState;
  /** The 25 customers changed for the window under test: pages of 10, 10 and 5. */
  let changed: string[];

  beforeEach(async () => {
    h = await startPagedCustomerStream();
    expect(await pollStream(h.definition, h.deps, 'test')).toMatchObject({ caughtUp: true });
    synced = (await h.deps.store.getStream(h.definition.streamId))!;
    const model = h.sim.controls.model;
    changed = [...model.customers.all()].slice(0, 25).map((e) => e.record.Id);
    for (const id of changed) model.update(model.customers, 'customer', id, { Notes: 'changed' });
    await h.clock.advance(1000);
    h.requests.length = 0;
  }, 60_000);

  afterEach(() => h.close());

  const cursorOf = (body: Record<string, unknown>) =>
    (body.Limitation as { Cursor?: string | null }).Cursor ?? null;
  const countOf = (body: Record<string, unknown>) => (body.Limitation as { Count: number }).Count;

  function expectEachChangeOnce() {
    const events = h.deps.publisher.events;
    expect(events.map((e) => e.subject).sort()).toEqual([...changed].sort());
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  }

  it('keeps the watermark and the last stored page after internal errors outlast the retries, and resumes at the next page', async () => {
    h.afterNextAnswer(() =>
      h.sim.controls.setFaults({ script: ['internal', 'internal', 'internal', 'internal'] }),
    );
    const failed = await driveClock(h.clock, pollStream(h.definition, h.deps, 'test'));
    expect(failed).toMatchObject({ kind: 'failed', parked: false });
    // One page, then four attempts at the second (three retries with backoff).
    expect(h.requests).toHaveLength(5);
    const stored = (await h.deps.store.getStream(h.definition.streamId))!;
    expect(stored.watermark).toBe(synced.watermark);
    expect(stored).toMatchObject({ consecutiveFailures: 1, window: { pages: 1 } });
    expect(stored.window?.cursor).toBe(cursorOf(h.requests[1]!));
    expect(stored.lastError).toMatch(/HTTP 500/);
    expect(stored.nextDueAt).toBeGreaterThan(h.clock.now());
    expect(h.deps.publisher.events).toHaveLength(10);

    await h.clock.advance(stored.nextDueAt - h.clock.now());
    h.requests.length = 0;
    expect(await pollStream(h.definition, h.deps, 'test')).toMatchObject({ caughtUp: true });
    expect(cursorOf(h.requests[0]!)).toBe(stored.window?.cursor);
    const resumed = (await h.deps.store.getStream(h.definition.streamId))!;
    expect(resumed).toMatchObject({ consecutiveFailures: 0, window: null });
    expect(resumed.watermark).toBe(stored.window?.endUtc);
    expectEachChangeOnce();
  });

  it('fails on a malformed page in the middle of the window, saying so, keeps the watermark and the last stored page, and resumes there', async () => {
    // A 200 whose JSON body is cut short: not tried again (the page fails the run).
    h.afterNextAnswer(() => h.sim.controls.setFaults({ script: ['malformed'] }));
    const failed = await driveClock(h.clock, pollStream(h.definition, h.deps, 'test'));
    expect(failed).toMatchObject({ kind: 'failed', parked: false });
    if (failed.kind === 'failed') expect(failed.error).toMatch(/customers\/getAll: .*not JSON/);
    expect(h.requests).toHaveLength(2);
    const stored = (await h.deps.store.getStream(h.definition.streamId))!;
    expect(stored.watermark).toBe(synced.watermark);
    expect(stored).toMatchObject({ consecutiveFailures: 1, window: { pages: 1 } });
    expect(h.deps.publisher.events).toHaveLength(10);

    await h.clock.advance(stored.nextDueAt - h.clock.now());
    h.requests.length = 0;
    expect(await pollStream(h.definition, h.deps, 'test')).toMatchObject({ caughtUp: true });
    expect(cursorOf(h.requests[0]!)).toBe(stored.window?.cursor);
    expectEachChangeOnce();
  });

  it('halves Count after the timeout error and keeps the halved Count for the rest of the window', async () => {
    h.afterNextAnswer(() => h.sim.controls.setFaults({ timeoutAboveCount: 5 }));
    expect(await pollStream(h.definition, h.deps, 'test')).toMatchObject({ caughtUp: true });
    // 10, then the 408 and 5 a page: a full last page is followed by one more request (rule 5).
    expect(h.requests.map(countOf)).toEqual([10, 10, 5, 5, 5, 5]);
    expect(h.requests.filter((r) => cursorOf(r) === null)).toHaveLength(1);
    expectEachChangeOnce();
  });

  it('waits for the Retry-After of a 429 met between pages, then goes on with the window', async () => {
    h.afterNextAnswer(() =>
      h.sim.controls.setFaults({ script: ['rate-limit'], retryAfterSeconds: 3 }),
    );
    const startedAt = h.clock.now();
    const polled = await driveClock(h.clock, pollStream(h.definition, h.deps, 'test'));
    expect(polled).toMatchObject({ kind: 'polled', caughtUp: true });
    expect(h.clock.now() - startedAt).toBeGreaterThanOrEqual(3000);
    expect(h.requests.map(cursorOf)).toEqual([
      null,
      cursorOf(h.requests[1]!),
      cursorOf(h.requests[1]!),
      cursorOf(h.requests[3]!),
    ]);
    expectEachChangeOnce();
  });

  it('stopped between publishing a later page and storing it, republishes from the last stored page with the same ids and misses nothing', async () => {
    let published = 0;
    h.deps.observer = {
      afterPublish: (_streamId, changes) => {
        if (changes.events.length > 0 && ++published === 3)
          throw new Error('poller stopped between publish and commit');
      },
    };
    const stopped = await pollStream(h.definition, h.deps, 'test');
    expect(stopped).toMatchObject({ kind: 'failed' });
    const before = [...h.deps.publisher.events];
    expect(before).toHaveLength(25);
    const stored = (await h.deps.store.getStream(h.definition.streamId))!;
    expect(stored.watermark).toBe(synced.watermark);
    expect(stored.window?.pages).toBeGreaterThanOrEqual(1);

    h.deps.observer = undefined;
    await h.clock.advance(stopped.kind === 'failed' ? stopped.retryAt - h.clock.now() : 0);
    expect(await pollStream(h.definition, h.deps, 'test')).toMatchObject({ caughtUp: true });
    const again = h.deps.publisher.events.slice(before.length);
    // The pages after the saved cursor (published, not all stored) come again under the same
    // ids; the stored ones do not.
    expect(again).toHaveLength(25 - 10 * stored.window!.pages);
    const firstIds = new Set(before.map((e) => e.id));
    for (const event of again) expect(firstIds).toContain(event.id);
    expect(new Set(before.map((e) => e.subject))).toEqual(new Set(changed));
  });

  it('refused the Cursor of a record deleted for good between pages, reads the window again from its newest page in the same run', async () => {
    const model = h.sim.controls.model;
    h.afterNextAnswer(() => {
      // The page's oldest record, which its Cursor names, is removed for good.
      const pageOne = [...model.customers.all()]
        .filter((e) => changed.includes(e.record.Id))
        .sort((a, b) => b.index - a.index)
        .slice(0, 10);
      model.customers.remove(pageOne.at(-1)!.record.Id);
    });
    const outcome = await pollStream(h.definition, h.deps, 'test');
    // Not a failure of the stream (no error, no backoff, no alarm): nothing was wrong.
    expect(outcome).toMatchObject({ kind: 'polled', caughtUp: true });
    expect(h.requests.map(cursorOf)).toEqual([
      null,
      cursorOf(h.requests[1]!),
      null,
      ...h.requests.slice(3).map(cursorOf),
    ]);
    const stored = (await h.deps.store.getStream(h.definition.streamId))!;
    expect(stored).toMatchObject({ consecutiveFailures: 0, lastError: null, window: null });
    expect(stored.watermark).not.toBe(synced.watermark);
    // The removed customer's change came with the first page, read before its removal.
    expectEachChangeOnce();
  });
});
