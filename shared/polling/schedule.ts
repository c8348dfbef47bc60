import type { StreamState } from '../state/state-store.ts';
import type { StreamDefinition } from './poll-context.ts';

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
 * The planner's choice: streams due at `now` — never polled, or past `nextDueAt` — and not
 * parked. Pure; ordered by how overdue they are.
 */
export function dueStreams(
  definitions: readonly StreamDefinition[],
  states: ReadonlyMap<string, StreamState>,
  now: number,
): StreamDefinition[] {
  return definitions
    .map((definition) => ({ definition, state: states.get(definition.streamId) }))
    .filter(({ state }) => !state || (!state.parked && state.nextDueAt <= now))
    .sort((a, b) => (a.state?.nextDueAt ?? 0) - (b.state?.nextDueAt ?? 0))
    .map(({ definition }) => definition);
}
