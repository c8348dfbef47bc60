import type { StreamState } from '../state/state-store.ts';
import { type PollDeps, type StreamDefinition, withSavedStates } from './poll-context.ts';
import { type PollOutcome, pollStream } from './poll-stream.ts';

/** What one connection job did, and when the connection is next due. */
export interface ConnectionPollResult {
  outcomes: PollOutcome[];
  /** Epoch ms of the earliest next poll among its unparked streams (now for a stream never polled). */
  nextDueAt: number | undefined;
  /**
   * The state of each stream as the job last read or wrote it (`undefined`: read, never stored),
   * so what follows the job (its metrics) needs no read of its own.
   */
  states: ReadonlyMap<string, StreamState | undefined>;
}

/**
 * One poll job of a connection: polls each listed stream that is due by `dueBy` (all of
 * them when absent) in turn with one client (one budget per token) until the deadline. A
 * stream no longer defined (entity dropped) or parked is skipped. Each stream's lease still
 * guards it, so an overlapping job polls nothing twice. Connector failures are recorded on
 * the stream by pollStream; store and publish failures propagate so the job is retried.
 * The connection's next due time comes from the states the job read and wrote: a stream is
 * read again only when the job neither read nor wrote it.
 */
export async function pollConnectionStreams(
  streamIds: readonly string[],
  definitions: readonly StreamDefinition[],
  deps: PollDeps,
  owner: string,
  dueBy?: number,
): Promise<ConnectionPollResult> {
  const byId = new Map(definitions.map((d) => [d.streamId, d]));
  const known = new Map<string, StreamState | undefined>();
  const observed: PollDeps = {
    ...deps,
    store: withSavedStates(deps.store, (state) => known.set(state.streamId, state)),
  };
  const outcomes: PollOutcome[] = [];
  for (const streamId of streamIds) {
    const definition = byId.get(streamId);
    if (!definition) continue;
    if (dueBy !== undefined) {
      const state = await deps.store.getStream(streamId);
      known.set(streamId, state);
      if (state && (state.parked || state.nextDueAt > dueBy)) continue;
    }
    if (deps.deadline !== undefined && deps.clock.now() >= deps.deadline) {
      // Out of time: the next planner run finds the rest still due.
      outcomes.push({ kind: 'skipped', streamId, reason: 'stopped' });
      continue;
    }
    outcomes.push(await pollStream(definition, observed, owner));
  }
  return { outcomes, nextDueAt: await earliestNextDue(definitions, known, deps), states: known };
}

async function earliestNextDue(
  definitions: readonly StreamDefinition[],
  known: ReadonlyMap<string, StreamState | undefined>,
  deps: PollDeps,
): Promise<number | undefined> {
  let earliest: number | undefined;
  for (const { streamId } of definitions) {
    const state = known.has(streamId) ? known.get(streamId) : await deps.store.getStream(streamId);
    if (state?.parked) continue;
    const due = state?.nextDueAt ?? deps.clock.now();
    earliest = earliest === undefined ? due : Math.min(earliest, due);
  }
  return earliest;
}
