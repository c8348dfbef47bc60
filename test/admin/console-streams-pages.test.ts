import { afterEach, describe, expect, it } from 'vitest';
import {
  PAGED_STREAMS_POLL_MS,
  readEveryStream,
  streamsReadDue,
} from '../../shared/admin/console/streams-pages.js';
import { streamState } from '../state/state-store.contract.ts';
import { type AdminHarness, createAdminHarness } from './support/harness.ts';

let harness: AdminHarness;
afterEach(async () => {
  await harness?.close();
});

/** The console's read of a path of the API, answered by the router (with a bound of 2). */
function apiOf(paths: string[]) {
  return async (path: string) => {
    paths.push(path);
    const url = new URL(path, 'http://console.test/');
    const answer = await harness.call('GET', `/${url.pathname.slice(1)}`, {
      query: Object.fromEntries(url.searchParams),
    });
    if (answer.status !== 200) throw new Error(JSON.stringify(answer.body));
    return answer.body;
  };
}

describe('the console reading GET /streams page after page', () => {
  it('follows nextCursor to the last page: every stream once, in order, the first page budgets', async () => {
    harness = createAdminHarness();
    harness.deps.streamListLimit = 2;
    harness.deps.budgets = () => [
      {
        connectionId: 'main',
        requestsInWindow: 3,
        limit: 200,
        liveReserve: 160,
        queued: { live: 0, bulk: 0 },
        pausedUntil: null,
      },
    ];
    for (const id of ['kept:customer', 'zz:resource'])
      await harness.state.saveStream(streamState(id), 0);
    const paths: string[] = [];

    const listing = await readEveryStream(apiOf(paths));

    expect(listing.streams.map((s: { id: string }) => s.id)).toEqual([
      'kept:customer',
      'main:customer',
      'main:resource',
      'main:taxEnvironment',
      'zz:resource',
    ]);
    expect(listing.budgets).toHaveLength(1);
    expect(listing.pages).toBe(3);
    expect(paths[0]).toBe('streams');
    expect(paths.slice(1).every((p) => p.startsWith('streams?cursor='))).toBe(true);
  });

  it("reads one connection's streams with its id", async () => {
    harness = createAdminHarness();
    harness.deps.streamListLimit = 2;
    const paths: string[] = [];
    const listing = await readEveryStream(apiOf(paths), 'main');
    expect(listing.streams.map((s: { id: string }) => s.id)).toEqual([
      'main:customer',
      'main:resource',
      'main:taxEnvironment',
    ]);
    expect(paths.every((p) => p.includes('connectionId=main'))).toBe(true);
  });
});

describe('how often the console overview reads the streams', () => {
  it('reads a one-page listing at every refresh, one of several pages once a minute', () => {
    expect(streamsReadDue(undefined, 0)).toBe(true);
    expect(streamsReadDue({ pages: 1, readAtMs: 1000 }, 1001)).toBe(true);
    expect(streamsReadDue({ pages: 4, readAtMs: 1000 }, 1000 + PAGED_STREAMS_POLL_MS - 1)).toBe(
      false,
    );
    expect(streamsReadDue({ pages: 4, readAtMs: 1000 }, 1000 + PAGED_STREAMS_POLL_MS)).toBe(true);
  });
});
