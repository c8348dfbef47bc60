import { describe, expect, it } from 'vitest';
import {
  budgetPerToken,
  PollLagTracker,
  type StreamSample,
} from '../../bench/connections-load-figures.ts';
import type { RequestLogEntry } from '../../shared/simulator/request-log.ts';

const T0 = Date.UTC(2026, 10, 25, 10, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();

function sample(partial: Partial<StreamSample> & { id: string }): StreamSample {
  return {
    connectionId: partial.id.split(':')[0]!,
    lastPollAt: null,
    nextDueAt: null,
    initialSyncDone: false,
    ...partial,
  };
}

function logEntry(ms: number, enterpriseId: string | null, status = 200): RequestLogEntry {
  return {
    time: iso(ms),
    operation: 'customers/getAll',
    status,
    items: 0,
    count: 1000,
    fault: null,
    enterpriseId,
  };
}

describe('connections-load figures', () => {
  it('measures a first poll from when its connection was added, later ones from their due time', () => {
    const tracker = new PollLagTracker(() => T0);
    tracker.observe([sample({ id: 'h1:customer' })]);
    expect(tracker.waiting(T0 + 5_000)).toEqual([5_000]);
    const first = tracker.observe([
      sample({ id: 'h1:customer', lastPollAt: iso(T0 + 2_000), nextDueAt: iso(T0 + 62_000) }),
    ]);
    expect(first).toEqual([
      { streamId: 'h1:customer', dueAt: T0, startedAt: T0 + 2_000, firstSync: true },
    ]);
    tracker.observe([
      sample({
        id: 'h1:customer',
        lastPollAt: iso(T0 + 2_000),
        nextDueAt: iso(T0 + 62_000),
        initialSyncDone: true,
      }),
    ]);
    const later = tracker.observe([
      sample({
        id: 'h1:customer',
        lastPollAt: iso(T0 + 63_500),
        nextDueAt: iso(T0 + 122_000),
        initialSyncDone: true,
      }),
    ]);
    expect(later.map((p) => [p.startedAt - p.dueAt, p.firstSync])).toEqual([[1_500, false]]);
    expect(tracker.waiting(T0 + 130_000)).toEqual([8_000]);
  });

  it('counts the busiest 30 s per token, never across tokens, and 429 answers apart', () => {
    const log = [
      logEntry(T0, 'e1'),
      logEntry(T0 + 10_000, 'e1'),
      logEntry(T0 + 20_000, 'e1'),
      logEntry(T0 + 5_000, 'e2'),
      logEntry(T0 + 6_000, 'e2', 429),
      logEntry(T0 + 7_000, null),
    ];
    expect(budgetPerToken(log)).toEqual({
      tokens: 2,
      requests: 6,
      busiestPerToken: 3,
      throttled: 1,
    });
  });
});
