import type { Clock } from '../clock.ts';
import { StateConflictError, type StateStore, type StreamState } from '../state/state-store.ts';
import type { StreamDefinition } from './poll-context.ts';
import { initialStreamState } from './poll-stream.ts';

/**
 * Records on each of `streamIds` (a connection's streams, those of `definitions`) what a poll
 * that could not start leaves: `next` gives the stream's new state from its stored one (or its
 * initial one, never polled yet) at `now`. A stream whose state changed meanwhile (a conflict)
 * is left as it is. Returns the streams marked and the earliest next due time recorded, for the
 * connection's own.
 * @example await markConnectionStreams(ids, definitions, deps, (stored, definition, now) => ({ ...stored, nextDueAt: now + 60_000 }))
 */
export async function markConnectionStreams(
  streamIds: readonly string[],
  definitions: readonly StreamDefinition[],
  deps: { store: StateStore; clock: Clock },
  next: (stored: StreamState, definition: StreamDefinition, now: number) => StreamState,
): Promise<{ marked: string[]; nextDueAt: number | undefined }> {
  const byId = new Map(definitions.map((d) => [d.streamId, d]));
  const marked: string[] = [];
  let earliest: number | undefined;
  for (const streamId of streamIds) {
    const definition = byId.get(streamId);
    if (!definition) continue;
    const now = deps.clock.now();
    const stored = (await deps.store.getStream(streamId)) ?? initialStreamState(definition, now);
    const state = next(stored, definition, now);
    try {
      await deps.store.saveStream(state, stored.version);
    } catch (conflict) {
      if (conflict instanceof StateConflictError) continue;
      throw conflict;
    }
    marked.push(streamId);
    earliest = earliest === undefined ? state.nextDueAt : Math.min(earliest, state.nextDueAt);
  }
  return { marked, nextDueAt: earliest };
}
