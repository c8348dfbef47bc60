import type { z } from 'zod';
import { splitStreamId } from '../connections/connection.ts';
import type { BudgetView as TokenBudgetView } from '../connector/budget/budget-types.ts';
import { activePass } from '../polling/backfill-state.ts';
import type { StreamDefinition } from '../polling/poll-context.ts';
import type { HeldStream } from '../polling/poll-loop-options.ts';
import { streamDueAt } from '../polling/schedule.ts';
import { isRemovedStream, type StreamState, type StreamWindow } from '../state/state-store.ts';
import type { BudgetViewSchema, StreamViewSchema } from './schemas.ts';

/** One stream as `GET /streams` shows it. */
export type StreamView = z.infer<typeof StreamViewSchema>;
/** One connection's connector budget as `GET /streams` shows it. */
export type BudgetView = z.infer<typeof BudgetViewSchema>;

/**
 * A token budget's figures for `GET /streams`. Pure.
 * @example toBudgetView('local', client.budgetView()!)
 */
export function toBudgetView(connectionId: string, view: TokenBudgetView): BudgetView {
  return {
    connectionId,
    requestsInWindow: view.requestsInWindow,
    limit: view.limit,
    liveReserve: view.liveReserve,
    queued: view.queued,
    pausedUntil: view.pausedUntil === null ? null : new Date(view.pausedUntil).toISOString(),
  };
}

const isoOrNull = (ms: number | null): string | null =>
  ms === null ? null : new Date(ms).toISOString();

/** How a stream is polled, as the streams view names it. */
function strategyOf(definition: StreamDefinition | undefined): string | null {
  if (!definition) return null;
  const spec = definition.spec;
  return spec.strategy === 'windowed' && spec.sweep ? 'windowed+sweep' : spec.strategy;
}

/**
 * The view of a stream: its stored state, or (never polled) its definition alone, or (reset
 * and no longer configured) `streamId` alone, its connection and entity type read from it.
 * Lag is now − watermark in seconds, null without a watermark; `nextDueAt` is when the planner
 * polls it under its current definition ({@link streamDueAt}). Pure: `nowMs` is given.
 */
export function toStreamView(
  definition: StreamDefinition | undefined,
  state: StreamState | undefined,
  nowMs: number,
  streamId?: string,
): StreamView {
  const id = state?.streamId ?? definition?.streamId ?? streamId ?? '';
  const parts = splitStreamId(id);
  const watermarkMs = state?.watermark ? Date.parse(state.watermark) : Number.NaN;
  const pass = state ? activePass(state) : undefined;
  return {
    id,
    connectionId: state?.connectionId ?? definition?.connectionId ?? parts.connectionId,
    entityType: state?.entityType ?? definition?.spec.entityType ?? parts.entityType,
    configured: definition !== undefined,
    strategy: strategyOf(definition),
    watermark: state?.watermark ?? null,
    lastPollAt: isoOrNull(state?.lastPollAt ?? null),
    lastSuccessAt: isoOrNull(state?.lastSuccessAt ?? null),
    // When the planner will poll it: a kept due time beyond the current interval counts no more.
    nextDueAt: isoOrNull(
      state ? (definition ? streamDueAt(definition, state) : state.nextDueAt) : null,
    ),
    lagSeconds: Number.isFinite(watermarkMs)
      ? Math.max(0, Math.round((nowMs - watermarkMs) / 1000))
      : null,
    consecutiveFailures: state?.consecutiveFailures ?? 0,
    lastError: state?.lastError ?? null,
    parked: state?.parked ?? false,
    parkedReason: state?.parkedReason ?? null,
    initialSyncDone: state?.initialSyncDone ?? false,
    windowInProgress: windowView(state?.window ?? null),
    recordsRead: state?.recordsRead ?? 0,
    eventsPublished: state?.eventsPublished ?? 0,
    recordsSetAside: state?.recordsSetAside ?? 0,
    lastSetAside: state?.lastSetAside
      ? { error: state.lastSetAside.error, at: new Date(state.lastSetAside.at).toISOString() }
      : null,
    backfillPass: pass
      ? {
          jobId: pass.jobId,
          watermark: pass.watermark,
          windowInProgress: windowView(pass.window),
          recordsRead: pass.recordsRead,
          eventsPublished: pass.eventsPublished,
        }
      : null,
  };
}

function windowView(window: StreamWindow | null): StreamView['windowInProgress'] {
  return window ? { startUtc: window.startUtc, endUtc: window.endUtc, pages: window.pages } : null;
}

/**
 * A stream the local poll loop holds back in memory (PollLoop.held): its last polls failed and
 * the store refused to record it, so its stored state still says due.
 */
export type HeldStreamView = Pick<HeldStream, 'error' | 'failures' | 'retryAt'>;

/**
 * Every configured stream and every stored one (a stream no longer configured still shows), by
 * id. A stream in `held` shows what its stored state could not say: when it is polled next
 * (`nextDueAt`), its failures in a row and the last one's error.
 */
export function listStreamViews(
  definitions: readonly StreamDefinition[],
  states: readonly StreamState[],
  nowMs: number,
  held: ReadonlyMap<string, HeldStreamView> = new Map(),
): StreamView[] {
  // By id, not a search per stream: 1,000 connections have 13,000 streams.
  const definitionOf = new Map(definitions.map((d) => [d.streamId, d]));
  // A removed stream's tombstone (its snapshots being deleted in the background) is not shown,
  // unless its connection was added again (the stream it becomes, as after a reset).
  const byId = new Map(
    states
      .filter((s) => !isRemovedStream(s) || definitionOf.has(s.streamId))
      .map((s) => [s.streamId, s]),
  );
  const ids = new Set([...definitionOf.keys(), ...byId.keys()]);
  return [...ids].sort().map((id) => {
    const view = toStreamView(definitionOf.get(id), byId.get(id), nowMs);
    const waiting = held.get(id);
    if (!waiting) return view;
    return {
      ...view,
      nextDueAt: isoOrNull(waiting.retryAt),
      consecutiveFailures: waiting.failures,
      lastError: waiting.error,
    };
  });
}
