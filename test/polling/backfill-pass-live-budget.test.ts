import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { sharedBudgetFor } from '../../shared/connector/budget/shared-budgets.ts';
import { createConnectorClient } from '../../shared/connector/connector-client.ts';
import type { HttpTransport, RawResponse } from '../../shared/connector/http-transport.ts';
import { activePass } from '../../shared/polling/backfill-state.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../shared/polling/poll-settings.ts';
import { initialStreamState, pollStream } from '../../shared/polling/poll-stream.ts';
import { PASS_SLICE_MIN_MS } from '../../shared/polling/strategies/backfill-pass.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import { collectingPollDeps } from './poll-harness.ts';

const T0 = Date.UTC(2026, 10, 25, 8, 0, 0);
const HISTORY_START = '2026-01-01T00:00:00.000Z';
const TOKEN = 'pass-token';
/** A small budget, so a few streams polled every second ask more than its live share. */
const LIMITS = { requests: 20, windowMs: 3_000, marginMs: 0 };
const INTERVAL_MS = 1_000;

/** Answers every customers/getAll at once with an empty page; notes each request's start. */
class EmptyConnector implements HttpTransport {
  readonly starts: { at: number; startUtc: string | undefined }[] = [];
  constructor(private readonly clock: ManualClock) {}

  async postJson(_url: string, body: string): Promise<RawResponse> {
    const parsed = JSON.parse(body) as { UpdatedUtc?: { StartUtc: string } };
    this.starts.push({ at: this.clock.now(), startUtc: parsed.UpdatedUtc?.StartUtc });
    return { status: 200, headers: {}, text: JSON.stringify({ Customers: [], Cursor: null }) };
  }

  async close(): Promise<void> {}
}

/**
 * Other streams of the token, each asking for a live grant every `INTERVAL_MS` (or at once
 * when its last grant came later than that), until `stop` aborts; `grants` notes when each
 * stream got its grants.
 */
function otherLiveStreams(
  clock: ManualClock,
  count: number,
  stop: AbortSignal,
  grants: number[][],
) {
  const budget = sharedBudgetFor(TOKEN, LIMITS, clock);
  return Array.from({ length: count }, async (_, i) => {
    const claim = { priority: 'live' as const, streamId: `other-${i}`, intervalMs: INTERVAL_MS };
    const granted: number[] = [];
    grants.push(granted);
    while (!stop.aborted) {
      const asked = clock.now();
      await budget.acquire(claim, stop).then(
        () => granted.push(clock.now()),
        () => undefined,
      );
      await clock
        .sleep(Math.max(0, asked + INTERVAL_MS - clock.now()), stop)
        .catch(() => undefined);
    }
  });
}

/** The longest time between two of `times` (ascending). */
function longestGap(times: readonly number[]): number {
  return Math.max(0, ...times.slice(1).map((at, i) => at - times[i]!));
}

describe('a backfill pass while live polls ask more than the budget’s live share', () => {
  it('still moves on: its slices come after its live reads, however long those waited for the budget', async () => {
    const clock = new ManualClock(T0);
    const connector = new EmptyConnector(clock);
    const client = createConnectorClient(
      {
        baseUrl: 'http://connector.test',
        clientToken: 'c',
        accessToken: TOKEN,
        client: 'test',
        rateLimit: { requests: LIMITS.requests, windowMs: LIMITS.windowMs },
      },
      { clock, transport: connector, budgetMarginMs: LIMITS.marginMs },
    );
    const settings = pollSettingsFromEnv(
      { POLL_ENTITIES: 'customer', POLL_INTERVAL: '1s', POLL_HISTORY_START: HISTORY_START },
      T0,
    );
    const [definition] = streamDefinitions('main', settings);
    const store = new MemoryStateStore();
    await store.saveStream(
      {
        ...initialStreamState(definition!, T0),
        initialSyncDone: true,
        watermark: new Date(T0 - 1_000).toISOString(),
        lastPollAt: T0 - 1_000,
        lastSweepAt: T0,
        backfill: {
          kind: 'pass',
          jobId: 'bf_test',
          emit: false,
          startedAt: T0 - 1_000,
          endUtc: new Date(T0 - 1_000).toISOString(),
          watermark: null,
          window: null,
          recordsRead: 0,
          eventsPublished: 0,
          doneAt: null,
        },
      },
      0,
    );
    const stop = new AbortController();
    // Ten streams at 1 s ask 30 grants a 3 s window, the live share is 16: each waits ~2 s.
    const othersGrants: number[][] = [];
    const others = otherLiveStreams(clock, 10, stop.signal, othersGrants);
    const deps = collectingPollDeps(store, client, clock, settings);
    let ended = false;
    const run = pollStream(definition!, deps, 'test').finally(() => {
      ended = true;
    });
    for (let step = 0; step < 600 && !ended; step++) await clock.advance(50);
    stop.abort();
    await Promise.all(others);
    const state = await store.getStream(definition!.streamId);
    // The live window starts seconds back; the pass's, from the history start to its end.
    const isPass = (s: { startUtc: string | undefined }) =>
      Date.parse(s.startUtc ?? '') < T0 - 60_000;
    const passReads = connector.starts.filter(isPass);
    const liveReads = connector.starts.filter((s) => !isPass(s));
    // Its four windows (January to November, three months each) were read, a page a slice,
    // and the run ended with the pass done; before, it read its live window alone, for ever.
    expect(passReads.length).toBe(4);
    expect(ended).toBe(true);
    await expect(run).resolves.toMatchObject({ kind: 'polled', caughtUp: true });
    expect(activePass(state!)).toBeUndefined();
    // Its live window was read as often as the other streams' polls went, give or take the
    // page between two of its reads (which waits at most PASS_SLICE_MIN_MS for the budget).
    const until = passReads.at(-1)!.at;
    const othersLongest = Math.max(
      ...othersGrants.map((times) => longestGap(times.filter((at) => at <= until))),
    );
    const ownLongest = longestGap(liveReads.filter((r) => r.at <= until).map((r) => r.at));
    expect(ownLongest).toBeLessThanOrEqual(othersLongest + PASS_SLICE_MIN_MS);
  });
});
