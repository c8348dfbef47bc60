import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreamDefinition } from '../../shared/polling/poll-context.ts';
import { pollDueStreams } from '../../shared/polling/poll-due-streams.ts';
import type { PollSpec } from '../../shared/polling/poll-spec.ts';
import type { PollOutcome } from '../../shared/polling/poll-stream.ts';
import { type PollHarness, startPollHarness } from './poll-harness.ts';

let harness: PollHarness;
beforeAll(async () => {
  // Every stream polled each minute (POLL_INTERVAL=1m), each at its own moment of the minute.
  // Stream states in memory: in dynalite, the listing of every stream's state at each of the
  // 780 ticks took about 60% of the test's time, and when a sweep falls is no matter of the store.
  harness = await startPollHarness('small', 61, {}, { intervalMs: 60_000 }, 'memory');
});
afterAll(async () => {
  await harness?.close();
});

/** The period of a stream's sweep or deletion read, read off its spec (none: undefined). */
function sweepPeriodOf(spec: PollSpec): number | undefined {
  if (spec.strategy !== 'windowed') return undefined;
  return spec.sweep?.intervalMs ?? spec.deletions?.intervalMs;
}

/** Polls the due ones of `definitions` with the token each stream takes; their outcomes. */
async function pollDue(definitions: readonly StreamDefinition[]): Promise<PollOutcome[]> {
  const outcomes: PollOutcome[] = [];
  for (const connection of ['chain', 'hotel'] as const) {
    const own = definitions.filter(
      (d) => d.streamId.startsWith('hotel:') === (connection === 'hotel'),
    );
    outcomes.push(...(await pollDueStreams(own, harness.deps(connection), 'test')));
  }
  return outcomes;
}

const TICK_MS = 5_000;
/**
 * An hour and 5 minutes: every hourly sweep once (the first comes between half a period and a
 * period after the sync), every 15-minute read 4 times, with the hourly ones among them.
 */
const SPAN_MS = 65 * 60_000;
/** The connector counts a token's requests per 30 s (connector-api.md). */
const BUDGET_WINDOW_MS = 30_000;

/**
 * Streams whose deletions (or changes) no window shows are judged by a sweep (or a deletion
 * read) every 15 or 60 minutes. Synced together, they fell due together an hour later: one 30 s
 * window of the token's budget held all their requests at once.
 */
describe('the sweeps of a connection whose streams were all synced at one moment', () => {
  it('fall at least 30 s apart over an hour, each within its period', async () => {
    const swept = harness.definitions().filter((d) => sweepPeriodOf(d.spec) !== undefined);
    expect(swept.length).toBeGreaterThan(5);
    const store = harness.deps('chain').store;
    const synced = async () =>
      (await store.listStreams()).filter(
        (s) => swept.some((d) => d.streamId === s.streamId) && s.initialSyncDone,
      );
    for (let poll = 0; poll < 20 && (await synced()).length < swept.length; poll++)
      await pollDue(swept);
    const start = harness.clock.now();
    const last = new Map((await synced()).map((s) => [s.streamId, s.lastSweepAt]));
    expect([...last.values()]).toEqual(swept.map(() => start));

    const sweeps: { streamId: string; at: number }[] = [];
    while (harness.clock.now() < start + SPAN_MS) {
      await harness.clock.advance(TICK_MS);
      // Only a poll writes its stream's state: the states of the streams polled at this tick
      // are all that can show a new sweep (reading every state at each of the 780 ticks took
      // about 30% of the test's time).
      for (const { streamId } of await pollDue(swept)) {
        const state = await store.getStream(streamId);
        if (!state?.initialSyncDone || state.lastSweepAt === last.get(streamId)) continue;
        last.set(state.streamId, state.lastSweepAt);
        sweeps.push({ streamId: state.streamId, at: state.lastSweepAt! });
      }
    }

    const times = sweeps.map((s) => s.at).sort((a, b) => a - b);
    const gaps = times.slice(1).map((at, i) => at - times[i]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(BUDGET_WINDOW_MS);
    for (const definition of swept) {
      const count = sweeps.filter((s) => s.streamId === definition.streamId).length;
      expect([definition.streamId, count]).toEqual([
        definition.streamId,
        Math.floor(SPAN_MS / sweepPeriodOf(definition.spec)!),
      ]);
    }
  }, 120_000);
});
