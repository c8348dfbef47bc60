import { busiestWindow } from '../shared/connector/budget/sliding-log.ts';
import type { RequestLogEntry } from '../shared/simulator/request-log.ts';
import { percentile } from './figures.ts';

/** What `GET /streams` shows of one stream that the lag measure needs. */
export interface StreamSample {
  id: string;
  connectionId: string;
  lastPollAt: string | null;
  nextDueAt: string | null;
  initialSyncDone: boolean;
}

/** One poll seen between two samples: when it was due and when it started. */
export interface ObservedPoll {
  streamId: string;
  dueAt: number;
  startedAt: number;
  /** The stream's first sync was not done at the previous sample (or it was never polled). */
  firstSync: boolean;
}

/**
 * Poll lag from successive `GET /streams` samples: a stream whose `lastPollAt` moved started
 * a poll at that instant, and it was due at the `nextDueAt` of the previous sample (or, never
 * polled before, when its connection was added). Polls of one stream closer together than the
 * sampling period count once (a first sync's pages run back to back): sample more often than
 * the poll interval. Pure: times are given.
 */
export class PollLagTracker {
  private readonly last = new Map<string, StreamSample>();
  readonly polls: ObservedPoll[] = [];

  constructor(private readonly addedAt: (connectionId: string) => number | undefined) {}

  /** Records one sample; returns the polls it reveals. */
  observe(streams: readonly StreamSample[]): ObservedPoll[] {
    const found: ObservedPoll[] = [];
    for (const stream of streams) {
      const before = this.last.get(stream.id);
      this.last.set(stream.id, stream);
      if (stream.lastPollAt === null || stream.lastPollAt === before?.lastPollAt) continue;
      const dueText = before?.lastPollAt ? before.nextDueAt : null;
      const dueAt = dueText ? Date.parse(dueText) : this.addedAt(stream.connectionId);
      if (dueAt === undefined) continue;
      found.push({
        streamId: stream.id,
        dueAt,
        startedAt: Date.parse(stream.lastPollAt),
        firstSync: !before?.initialSyncDone,
      });
    }
    this.polls.push(...found);
    return found;
  }

  /**
   * Streams due at `nowMs` whose due poll has not started, and how long each has waited; a
   * stream never polled has been due since its connection was added.
   */
  waiting(nowMs: number): number[] {
    const waits: number[] = [];
    for (const stream of this.last.values()) {
      const dueAt = stream.nextDueAt
        ? Date.parse(stream.nextDueAt)
        : stream.lastPollAt === null
          ? this.addedAt(stream.connectionId)
          : undefined;
      const startedAt = stream.lastPollAt ? Date.parse(stream.lastPollAt) : undefined;
      if (dueAt === undefined || dueAt > nowMs) continue;
      if (startedAt !== undefined && startedAt >= dueAt) continue;
      waits.push(nowMs - dueAt);
    }
    return waits;
  }

  /** Streams whose first sync is done in the latest sample. */
  syncedStreams(): number {
    return [...this.last.values()].filter((s) => s.initialSyncDone).length;
  }
}

/** p50, p99 and max of lags in ms (NaN when there are none). */
export interface LagSummary {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

/** Summarizes lags in ms. Pure. */
export function summarizeLags(lagsMs: readonly number[]): LagSummary {
  const sorted = [...lagsMs].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.length ? sorted[sorted.length - 1]! : Number.NaN,
  };
}

/** The connector budget as the server counted it, per AccessToken (by its enterprise). */
export interface BudgetFigures {
  tokens: number;
  requests: number;
  /** Busiest 30 s of any one token. */
  busiestPerToken: number;
  /** Answers 429 over all tokens. */
  throttled: number;
}

/** Per-token busiest 30 s and 429 count from the simulator's request log. Pure. */
export function budgetPerToken(log: readonly RequestLogEntry[], windowMs = 30_000): BudgetFigures {
  const byToken = new Map<string, number[]>();
  let throttled = 0;
  for (const entry of log) {
    if (entry.status === 429) throttled += 1;
    // Rejected requests do not consume budget on the server (shared/simulator/rate-limit.ts).
    if (entry.enterpriseId === null || entry.status === 429) continue;
    const times = byToken.get(entry.enterpriseId) ?? [];
    times.push(Date.parse(entry.time));
    byToken.set(entry.enterpriseId, times);
  }
  let busiest = 0;
  for (const times of byToken.values()) busiest = Math.max(busiest, busiestWindow(times, windowMs));
  return { tokens: byToken.size, requests: log.length, busiestPerToken: busiest, throttled };
}
