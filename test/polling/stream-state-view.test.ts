import { describe, expect, it } from 'vitest';
import { initialStreamState } from '../../shared/polling/poll-stream.ts';
import {
  FULL_STATE_READ_INTERVAL_MS,
  FULL_STATE_READ_RETRY_MAX_MS,
  FULL_STATE_READ_SPACING_FACTOR,
  StreamStateView,
} from '../../shared/polling/stream-state-view.ts';
import type { StreamState } from '../../shared/state/state-store.ts';

const T0 = Date.UTC(2026, 10, 25, 8, 0, 0);
const TICK_MS = 1_000;

const state = (streamId: string, version: number): StreamState => ({
  ...initialStreamState({ streamId, connectionId: 'main', spec: { entityType: 'customer' } }, T0),
  version,
});

/**
 * A view over a store whose full reads the test answers one by one (`list`, `fail`) at the time
 * it sets (`at`, ms after T0), and whose re-reads find `stored` at once.
 */
function viewOver(stored: StreamState[] = []) {
  let now = T0;
  const inStore = new Map(stored.map((s) => [s.streamId, s]));
  const listings: { resolve: (states: StreamState[]) => void; reject: (error: Error) => void }[] =
    [];
  const changed: string[] = [];
  let holding = false;
  const heldRereads: (() => void)[] = [];
  const errors: unknown[] = [];
  let replaced = 0;
  const view = new StreamStateView({
    store: {
      listStreams: () => new Promise((resolve, reject) => listings.push({ resolve, reject })),
      getStream: async (streamId) => {
        if (streamId === 'unreadable') throw new Error('DynamoDB GetItem on table t failed');
        const found = inStore.get(streamId);
        if (!holding) return found;
        // Read now, answered when the test says (`answerRereads`).
        return new Promise((resolve) => heldRereads.push(() => resolve(found)));
      },
    },
    clock: { now: () => now },
    tickMs: TICK_MS,
    onStateChanged: (streamId) => changed.push(streamId),
    onAllReplaced: () => {
      replaced += 1;
    },
    onError: (error) => errors.push(error),
  });
  const answer = async (settle: () => void) => {
    const inFlight = view.fullReadInFlight();
    settle();
    await expect(inFlight).resolves.toBeUndefined();
  };
  return {
    view,
    listings,
    changed,
    errors,
    replaced: () => replaced,
    at: (ms: number) => {
      now = T0 + ms;
    },
    list: (states: StreamState[]) => answer(() => listings.at(-1)!.resolve(states)),
    /** From now on re-reads read the store at once but answer only when answerRereads says. */
    holdRereads: () => {
      holding = true;
    },
    /** Resolves once `count` re-reads have read the store and wait to be answered. */
    rereadsHeld: async (count: number) => {
      for (let turn = 0; heldRereads.length < count; turn++) {
        if (turn === 100) throw new Error(`${heldRereads.length} of ${count} re-reads began`);
        await Promise.resolve();
      }
    },
    /** Answers the re-reads held so far (what each found when it was made) and waits for them. */
    answerRereads: async () => {
      for (const answer of heldRereads.splice(0)) answer();
      await view.idle();
    },
    fail: () => answer(() => listings.at(-1)!.reject(new Error('DynamoDB Scan failed'))),
  };
}

describe('the stream state view', () => {
  it('is loaded once its first full read ends, which replaces every known state', async () => {
    const { view, list, replaced } = viewOver();
    view.keep('gone', state('gone', 4));
    view.readAllIfDue(T0);
    expect(view.loaded).toBe(false);
    await list([state('a', 1)]);
    expect(view.loaded).toBe(true);
    expect(replaced()).toBe(1);
    expect(view.get('a')?.version).toBe(1);
    expect(view.get('gone')).toBeUndefined();
  });

  it('reads every state at once, then at most every FULL_STATE_READ_INTERVAL_MS, one read at a time', async () => {
    const { view, listings, list } = viewOver();
    view.readAllIfDue(T0);
    view.readAllIfDue(T0 + FULL_STATE_READ_INTERVAL_MS);
    expect(listings).toHaveLength(1);
    await list([]);
    view.readAllIfDue(T0 + FULL_STATE_READ_INTERVAL_MS - 1);
    expect(listings).toHaveLength(1);
    view.readAllIfDue(T0 + FULL_STATE_READ_INTERVAL_MS);
    expect(listings).toHaveLength(2);
  });

  it('waits FULL_STATE_READ_SPACING_FACTOR times its length after a slow full read', async () => {
    const { view, listings, list, at } = viewOver();
    view.readAllIfDue(T0);
    at(10_000);
    await list([]);
    const next = 10_000 * FULL_STATE_READ_SPACING_FACTOR;
    view.readAllIfDue(T0 + next - 1);
    expect(listings).toHaveLength(1);
    view.readAllIfDue(T0 + next);
    expect(listings).toHaveLength(2);
  });

  it('tries a failed full read again after a tick, doubling up to FULL_STATE_READ_RETRY_MAX_MS', async () => {
    const { view, listings, errors, fail, at } = viewOver();
    let now = 0;
    view.readAllIfDue(T0);
    for (const waitMs of [1_000, 2_000, 4_000, 8_000, 16_000, FULL_STATE_READ_RETRY_MAX_MS]) {
      await fail();
      view.readAllIfDue(T0 + now + waitMs - 1);
      expect(listings).toHaveLength(errors.length);
      now += waitMs;
      at(now);
      view.readAllIfDue(T0 + now);
      expect(listings).toHaveLength(errors.length + 1);
    }
    expect(view.loaded).toBe(false);
  });

  it('keeps what polls stored during a full read over what it listed: the higher version wins', async () => {
    const { view, list } = viewOver();
    view.readAllIfDue(T0);
    view.keep('a', state('a', 3));
    view.keep('deleted', undefined);
    view.keep('older', state('older', 1));
    await list([state('a', 2), state('deleted', 1), state('older', 2), state('c', 1)]);
    expect(view.get('a')?.version).toBe(3);
    expect(view.get('deleted')).toBeUndefined();
    expect(view.get('older')?.version).toBe(2);
    expect(view.get('c')?.version).toBe(1);
  });

  it('lets a full read replace states kept before it began', async () => {
    const { view, list } = viewOver();
    // Kept before a reset that stored the stream afresh (its versions start again).
    view.keep('a', state('a', 5));
    view.readAllIfDue(T0);
    await list([state('a', 1)]);
    expect(view.get('a')?.version).toBe(1);
  });

  it('re-reads the streams told of and tells which changed, taking what the store holds', async () => {
    const { view, changed } = viewOver([state('a', 2), state('stored afresh', 1)]);
    // Kept before the re-reads began: the store has changed since (another process's poll, a
    // stream removed, one removed and stored afresh with its versions starting again).
    view.keep('stored afresh', state('stored afresh', 3));
    view.keep('deleted', state('deleted', 1));
    view.reread(['a', 'stored afresh', 'deleted']);
    await view.idle();
    expect(view.get('a')?.version).toBe(2);
    expect(view.get('stored afresh')?.version).toBe(1);
    expect(view.get('deleted')).toBeUndefined();
    expect(changed.sort()).toEqual(['a', 'deleted', 'stored afresh']);
  });

  it('drops a re-read when a poll kept a state while it ran, even one that found none', async () => {
    const { view, changed, holdRereads, rereadsHeld, answerRereads } = viewOver([state('a', 1)]);
    holdRereads();
    // The re-reads read the store before each stream's poll ended: 'a' at version 1, 'new'
    // not yet stored; the polls then keep what they stored.
    view.reread(['a', 'new']);
    await rereadsHeld(2);
    view.keep('a', state('a', 2));
    view.keep('new', state('new', 1));
    await answerRereads();
    expect(view.get('a')?.version).toBe(2);
    expect(view.get('new')?.version).toBe(1);
    expect(changed).toEqual([]);
  });

  it('lets the higher version win between a re-read and a full read that ran beside it', async () => {
    const { view, holdRereads, rereadsHeld, answerRereads, list } = viewOver([
      state('a', 1),
      state('b', 4),
    ]);
    holdRereads();
    view.reread(['a', 'b']);
    await rereadsHeld(2);
    view.readAllIfDue(T0);
    await list([state('a', 2), state('b', 3)]);
    await answerRereads();
    expect(view.get('a')?.version).toBe(2);
    expect(view.get('b')?.version).toBe(4);
  });

  it('tells a failed re-read to onError and keeps what it knew', async () => {
    const { view, errors, changed } = viewOver();
    view.keep('unreadable', state('unreadable', 1));
    view.reread(['unreadable']);
    await view.idle();
    expect(errors).toHaveLength(1);
    expect(changed).toEqual([]);
    expect(view.get('unreadable')?.version).toBe(1);
  });
});
