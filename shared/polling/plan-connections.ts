import type { StreamState } from '../state/state-store.ts';
import type { StreamDefinition } from './poll-context.ts';
import { dueStreams, streamDueAt } from './schedule.ts';

/**
 * Connections the planner reads per page of the connection store (one eventually consistent
 * Query each: 500 items of about 1 KB stay well inside a Query's 1 MB page).
 */
export const PLANNER_PAGE_CONNECTIONS = 500;

/** A connection as the planner sees it: its id and its streams. */
export interface PlannedConnection {
  connectionId: string;
  definitions: readonly StreamDefinition[];
}

/** One poll job: every due stream of one connection, polled by one invocation with one client. */
export interface ConnectionJob {
  connectionId: string;
  /** The streams due by the end of the lookahead, in due order. */
  streamIds: string[];
  /** How long SQS holds the job back: until its earliest stream is due (ms, ≥ 0). */
  delayMs: number;
  /** Epoch ms: the poller polls the streams due by then, and leaves the rest. */
  dueBy: number;
}

/**
 * The planner's choice per connection: one job for each connection with at least one stream
 * due by `now + lookaheadMs`, delayed to its earliest due stream. Jobs scale with
 * connections, not streams (13 streams of one hotel are one job). Pure.
 * @example planConnectionJobs([{ connectionId: 'h1', definitions }], new Map(), 0, 60_000)
 */
export function planConnectionJobs(
  connections: readonly PlannedConnection[],
  states: ReadonlyMap<string, StreamState>,
  now: number,
  lookaheadMs: number,
): ConnectionJob[] {
  const jobs: ConnectionJob[] = [];
  for (const connection of connections) {
    const due = dueStreams(connection.definitions, states, now, lookaheadMs);
    if (due.length === 0) continue;
    const earliest = Math.min(
      ...due.map((d) => {
        const state = states.get(d.streamId);
        return state ? streamDueAt(d, state) : now;
      }),
    );
    jobs.push({
      connectionId: connection.connectionId,
      streamIds: due.map((d) => d.streamId),
      delayMs: Math.max(0, earliest - now),
      dueBy: now + lookaheadMs,
    });
  }
  return jobs;
}

/** A connection stored as data, as the planner reads it: no stream states needed. */
export interface StoredConnectionDue {
  connectionId: string;
  enabled: boolean;
  /** When its earliest stream is next due (absent: never polled, due now). */
  nextDueAt?: number;
  streamIds: readonly string[];
}

/**
 * The planner's choice among stored connections, from their own `nextDueAt` (kept by the
 * poller), so planning 10,000 connections reads 10,000 items, not 130,000 stream states.
 * Each job lists all of the connection's streams; the poller polls those due by `dueBy`.
 * Jobs come most overdue first (then by id): a run cut short (a timeout, a failed request)
 * leaves out the connections due last, and those it left out, their `nextDueAt` unmoved, are
 * then the most overdue and go first on the next run, so no connection is left out run after
 * run, as it would be in id order. A connection never polled (no `nextDueAt`) goes first: at
 * `now` it would sort after every connection due since it was added, and when more is due than
 * a run sends, its first poll would be left out run after run. Pure.
 */
export function planStoredConnectionJobs(
  connections: readonly StoredConnectionDue[],
  now: number,
  lookaheadMs: number,
): ConnectionJob[] {
  return connections
    .filter((c) => c.enabled && c.streamIds.length > 0 && (c.nextDueAt ?? now) <= now + lookaheadMs)
    .sort(
      (a, b) =>
        overdueRank(a.nextDueAt) - overdueRank(b.nextDueAt) ||
        (a.connectionId < b.connectionId ? -1 : a.connectionId > b.connectionId ? 1 : 0),
    )
    .map((c) => ({
      connectionId: c.connectionId,
      streamIds: [...c.streamIds],
      delayMs: Math.max(0, (c.nextDueAt ?? now) - now),
      dueBy: now + lookaheadMs,
    }));
}

/** Where a connection's `nextDueAt` puts it among jobs, most overdue first: never polled first. */
function overdueRank(nextDueAt: number | undefined): number {
  return nextDueAt ?? Number.MIN_SAFE_INTEGER;
}
