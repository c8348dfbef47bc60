import type { StreamState } from '../state/state-store.ts';
import type { StreamDefinition } from './poll-context.ts';
import { nextSlotTime, pollSlotsOf } from './stream-phase.ts';

/** Longest wait after repeated failures. */
export const FAILURE_BACKOFF_MAX_MS = 30 * 60_000;

/**
 * Wait before retrying a stream after `failures` consecutive failures: the poll interval
 * doubled per failure, capped at {@link FAILURE_BACKOFF_MAX_MS}. Deterministic, so a
 * stream's next attempt is visible in `streams list`.
 * @example failureBackoffMs(3, 60_000) === 240_000
 */
export function failureBackoffMs(failures: number, intervalMs: number): number {
  return Math.min(FAILURE_BACKOFF_MAX_MS, intervalMs * 2 ** Math.max(0, failures - 1));
}

/**
 * When a stream polled at `startedAt` is due again: one interval later, or, for a staggered
 * stream, at its next phase slot (`phase + k·interval`) at least half an interval away — so a
 * late start never shifts its slot. Pure.
 * @example nextDueTime(125_000, 60_000, 5_000) === 185_000
 */
export function nextDueTime(startedAt: number, intervalMs: number, phaseMs: number): number {
  if (phaseMs === 0) return startedAt + intervalMs;
  const earliest = startedAt + intervalMs / 2;
  const offset = (((phaseMs - earliest) % intervalMs) + intervalMs) % intervalMs;
  return earliest + offset;
}

/**
 * When a stream polled at `startedAt` is due again under its definition: {@link nextDueTime},
 * or, for a stream polled in several slots of its interval ({@link pollSlotsOf}), its next
 * slot ({@link nextSlotTime}). Pure.
 * @example nextPollTime({ spec, intervalMs: 60_000, phaseMs: 0, products: [a, b, c] }, 125_000) === 140_000
 */
export function nextPollTime(
  definition: Pick<StreamDefinition, 'spec' | 'intervalMs' | 'phaseMs' | 'products'>,
  startedAt: number,
): number {
  const slots = pollSlotsOf(definition);
  const phaseMs = definition.phaseMs ?? 0;
  return slots > 1
    ? nextSlotTime(startedAt, definition.intervalMs, phaseMs, slots)
    : nextDueTime(startedAt, definition.intervalMs, phaseMs);
}

/**
 * When a stream is due under its current definition: its stored `nextDueAt`, brought forward
 * to the slot its last poll would have set with the definition's interval and phase. So a
 * shorter interval (a connection re-added with its state kept, a changed POLL_INTERVAL) takes
 * effect at once instead of after the old one; an unchanged definition keeps the stored time.
 * Never later than stored. A failing stream (its backoff counts from the failure's end, which
 * the state does not hold, so it would be cut short), a parked one (its skip moves the due time
 * but not `lastPollAt`) and one never polled keep their stored time. Pure.
 * @example streamDueAt({ intervalMs: 10_000 }, { ...state, lastPollAt: 0, nextDueAt: 60_000 }) === 10_000
 */
export function streamDueAt(
  definition: Pick<StreamDefinition, 'intervalMs' | 'phaseMs'>,
  state: Pick<StreamState, 'nextDueAt' | 'lastPollAt' | 'consecutiveFailures' | 'parked'>,
): number {
  if (state.lastPollAt === null || state.consecutiveFailures > 0 || state.parked)
    return state.nextDueAt;
  const current = nextDueTime(state.lastPollAt, definition.intervalMs, definition.phaseMs ?? 0);
  return Math.min(state.nextDueAt, current);
}

/**
 * The planner's choice: streams due by `now + lookaheadMs` — never polled, or reaching
 * their {@link streamDueAt}. A parked stream is due too: its poll makes no request unless its connection's
 * credentials changed since they were refused (`staysParked`) or their retry is due (`parkedRetryDue`), and moves it to its next due time. Pure; ordered by due time. The AWS planner runs once per
 * schedule period, so it looks one period ahead and delays each poll job to its due time.
 */
export function dueStreams(
  definitions: readonly StreamDefinition[],
  states: ReadonlyMap<string, StreamState>,
  now: number,
  lookaheadMs = 0,
): StreamDefinition[] {
  // Walks every stream (13,000 for 1,000 hotels): fine once per planner period; the local
  // loop, which plans every tick, keeps a DueIndex instead (see DueSchedule). Only the due ones
  // are collected and sorted.
  const due: { definition: StreamDefinition; at: number }[] = [];
  for (const definition of definitions) {
    const state = states.get(definition.streamId);
    const at = state ? streamDueAt(definition, state) : 0;
    if (at > now + lookaheadMs) continue;
    due.push({ definition, at });
  }
  return due.sort((a, b) => a.at - b.at).map(({ definition }) => definition);
}

/**
 * The shortest the local planner sleeps between two ticks of `tickMs`: a tenth of a tick, so
 * thousands of streams due at scattered instants wake it at most ten times a tick.
 * @example plannerWakeFloorMs(250) === 25
 */
export function plannerWakeFloorMs(tickMs: number): number {
  return tickMs / 10;
}

/**
 * How long the local planner sleeps after a tick of `tickMs`: until the next stream becomes
 * ready (`nextReadyAt`) when that comes first, so a stream due between two ticks starts when it
 * is due rather than up to a tick later (ticks drift by their own work and event-loop delays,
 * and due times need not fall on their phase); a millisecond past it, as a timer may fire a
 * little early on the wall clock; never under {@link plannerWakeFloorMs}. Pure.
 * @example plannerSleepMs(250, 1_000, 1_100) === 101
 */
export function plannerSleepMs(
  tickMs: number,
  now: number,
  nextReadyAt: number | undefined,
): number {
  if (nextReadyAt === undefined) return tickMs;
  return Math.min(tickMs, Math.max(plannerWakeFloorMs(tickMs), nextReadyAt - now + 1));
}
