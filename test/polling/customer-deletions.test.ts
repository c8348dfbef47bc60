import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../shared/clock.ts';
import type { PollDeps } from '../../shared/polling/poll-context.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import { deletionWindows } from '../../shared/polling/strategies/deletions.ts';
import {
  type PollHarness,
  pollUntilCaughtUp,
  startPollHarness,
  storedIds,
} from './poll-harness.ts';

let harness: PollHarness;
beforeAll(async () => {
  harness = await startPollHarness('small', 47, { deletesMoveUpdatedUtc: false });
});
afterAll(async () => {
  await harness?.close();
});

/**
 * connector-api.md does not say that a soft delete moves `UpdatedUtc`, and customers/getAll
 * filters on `DeletedUtc` of its own: the simulator playing that reading, a deleted customer is
 * in no `UpdatedUtc` window, and is found by the stream's periodic read on `DeletedUtc`.
 */
describe('a customer deleted without its UpdatedUtc moving', () => {
  it('is published as deleted within the deletion interval, once', async () => {
    const { definition, deps } = harness.streamOf('customer');
    await pollUntilCaughtUp(definition, deps);
    const model = harness.sim.controls.model;
    const [id] = await storedIds(deps, definition.streamId);
    await harness.clock.advance(definition.intervalMs);
    model.softDelete(model.customers, 'customer', id!, {
      IsActive: false,
      ActivityState: 'Deleted',
    });
    harness.publisher.events.length = 0;

    await harness.clock.advance(16 * 60_000);
    await pollStream(definition, deps, 't');
    expect(harness.publisher.events.map((e) => `${e.type} ${e.subject}`)).toEqual([
      `customer.deleted ${id}`,
    ]);

    harness.publisher.events.length = 0;
    await harness.clock.advance(16 * 60_000);
    await pollStream(definition, deps, 't');
    expect(harness.publisher.events).toEqual([]);
  });
});

describe('deletionWindows', () => {
  const windows = { overlapMs: 2000, settleLagMs: 1000, historyStartMs: 0, minWindowMs: 0 };

  it('reads from the last run less settle lag and overlap to now less settle lag', () => {
    const at = Date.UTC(2026, 0, 1);
    expect(deletionWindows(at, at + 60_000, windows)).toEqual([
      { startUtc: '2025-12-31T23:59:57.000Z', endUtc: '2026-01-01T00:00:59.000Z' },
    ]);
  });

  it('splits a span longer than three months', () => {
    const at = Date.UTC(2026, 0, 1, 0, 0, 3);
    const split = deletionWindows(at, Date.UTC(2026, 6, 1, 0, 0, 1), windows);
    expect(split.map((w) => w.endUtc)).toEqual([
      '2026-04-01T00:00:00.000Z',
      '2026-07-01T00:00:00.000Z',
    ]);
  });
});

/** `client` with each page of a read on `DeletedUtc` taking `pageMs` of `clock`'s time. */
function slowDeletionPages(
  client: PollDeps['client'],
  clock: ManualClock,
  pageMs: number,
  requests: { count: number },
): PollDeps['client'] {
  return new Proxy(client, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property !== 'paginate' || typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const pages = value.apply(target, args) as AsyncIterable<unknown>;
        if (!(args[1] as { DeletedUtc?: unknown }).DeletedUtc) return pages;
        return (async function* () {
          for await (const page of pages) {
            requests.count++;
            await clock.advance(pageMs);
            yield page;
          }
        })();
      };
    },
  });
}

describe('a customer deletion read reaching the invocation deadline', () => {
  it('stops starting pages at the deadline and goes on in the next poll, publishing each delete once', async () => {
    const { definition, deps } = harness.streamOf('customer');
    await pollUntilCaughtUp(definition, deps);
    await harness.clock.advance(16 * 60_000);
    await pollStream(definition, deps, 't');
    const model = harness.sim.controls.model;
    const ids = (await storedIds(deps, definition.streamId)).slice(0, 3);
    for (const id of ids)
      model.softDelete(model.customers, 'customer', id, {
        IsActive: false,
        ActivityState: 'Deleted',
      });
    harness.publisher.events.length = 0;
    await harness.clock.advance(16 * 60_000);
    const before = (await deps.store.getStream(definition.streamId))!;

    // One deleted customer a page, each taking 10 s: two fit before the deadline, a third
    // would still be on its way at it.
    const requests = { count: 0 };
    const slow = slowDeletionPages(deps.client, harness.clock, 10_000, requests);
    const deadline = harness.clock.now() + 25_000;
    const outcome = await pollStream(
      definition,
      { ...deps, client: slow, pageCount: 1, deadline },
      't',
    );
    expect(outcome).toMatchObject({ kind: 'polled', caughtUp: false });
    expect(requests.count).toBe(2);
    const deleted = () => harness.publisher.events.filter((e) => e.type === 'customer.deleted');
    expect(deleted()).toHaveLength(2);
    const cut = (await deps.store.getStream(definition.streamId))!;
    expect(cut.lastSweepAt).toBe(before.lastSweepAt);
    expect(cut.nextDueAt).toBeLessThanOrEqual(harness.clock.now());

    await pollStream(definition, deps, 't');
    expect(
      deleted()
        .map((e) => e.subject)
        .sort(),
    ).toEqual([...ids].sort());
    const done = (await deps.store.getStream(definition.streamId))!;
    expect(done.lastSweepAt).toBe(harness.clock.now());
  });
});

describe('a customer deletion window needing more pages than one poll can read', () => {
  it('goes on from the page it reached in the next poll, and ends', async () => {
    const { definition, deps } = harness.streamOf('customer');
    await pollUntilCaughtUp(definition, deps);
    await harness.clock.advance(16 * 60_000);
    await pollStream(definition, deps, 't');
    const model = harness.sim.controls.model;
    const ids = (await storedIds(deps, definition.streamId)).slice(0, 5);
    for (const id of ids)
      model.softDelete(model.customers, 'customer', id, {
        IsActive: false,
        ActivityState: 'Deleted',
      });
    harness.publisher.events.length = 0;
    await harness.clock.advance(16 * 60_000);
    const before = (await deps.store.getStream(definition.streamId))!;

    // One deleted customer a page, each taking 10 s: a poll reads the two pages that fit before
    // its deadline.
    const requests = { count: 0 };
    const slow = slowDeletionPages(deps.client, harness.clock, 10_000, requests);
    const deleted = () => harness.publisher.events.filter((e) => e.type === 'customer.deleted');
    // Five deleted and a last, empty page: three polls of two pages each.
    for (let poll = 0; poll < 3; poll++) {
      const deadline = harness.clock.now() + 25_000;
      await pollStream(definition, { ...deps, client: slow, pageCount: 1, deadline }, 't');
      if (poll < 2) {
        const cut = (await deps.store.getStream(definition.streamId))!;
        expect(cut.deletionWindow?.cursor).toBeTruthy();
        expect(cut.lastSweepAt).toBe(before.lastSweepAt);
      }
    }

    // Before, each poll read the window again from its newest page: the same two, for ever.
    expect(requests.count).toBe(6);
    expect(
      deleted()
        .map((e) => e.subject)
        .sort(),
    ).toEqual([...ids].sort());
    const done = (await deps.store.getStream(definition.streamId))!;
    expect(done.lastSweepAt).toBeGreaterThan(before.lastSweepAt!);
    expect(done.deletionWindow ?? null).toBeNull();
  });
});

describe('a kept customer deletion window whose Cursor the connector refuses', () => {
  it('is read again from its newest page, not failed at every poll', async () => {
    const { definition, deps } = harness.streamOf('customer');
    await pollUntilCaughtUp(definition, deps);
    await harness.clock.advance(16 * 60_000);
    await pollStream(definition, deps, 't');
    const model = harness.sim.controls.model;
    const [id] = await storedIds(deps, definition.streamId);
    model.softDelete(model.customers, 'customer', id!, {
      IsActive: false,
      ActivityState: 'Deleted',
    });
    harness.publisher.events.length = 0;
    // The window a cut read kept, its Cursor naming a record the connector does not know (one
    // deleted for good since).
    const stored = (await deps.store.getStream(definition.streamId))!;
    const now = harness.clock.now();
    await deps.store.saveStream(
      {
        ...stored,
        deletionWindow: {
          startUtc: new Date(stored.lastSweepAt! - 2_000).toISOString(),
          endUtc: new Date(now + 1_000).toISOString(),
          cursor: '00000000-0000-4000-8000-000000000001',
        },
      },
      stored.version,
    );
    await harness.clock.advance(16 * 60_000);

    const outcome = await pollStream(definition, deps, 't');
    expect(outcome).toMatchObject({ kind: 'polled', caughtUp: true });
    expect(harness.publisher.events.map((e) => `${e.type} ${e.subject}`)).toEqual([
      `customer.deleted ${id}`,
    ]);
    expect((await deps.store.getStream(definition.streamId))!.deletionWindow ?? null).toBeNull();
  });
});
