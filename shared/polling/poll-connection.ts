import type { PollDeps, StreamDefinition } from './poll-context.ts';
import { type PollOutcome, pollStream } from './poll-stream.ts';

/**
 * One poll job of a connection: polls each of its due streams in turn with one client (one
 * budget per token) until the deadline. A stream that is no longer defined (connection
 * disabled or entity dropped) is skipped. Each stream's lease still guards it, so an
 * overlapping job polls nothing twice. Never throws for a connector failure (pollStream
 * records it on the stream); store and publish failures propagate so the job is retried.
 */
export async function pollConnectionStreams(
  streamIds: readonly string[],
  definitions: readonly StreamDefinition[],
  deps: PollDeps,
  owner: string,
): Promise<PollOutcome[]> {
  const byId = new Map(definitions.map((d) => [d.streamId, d]));
  const outcomes: PollOutcome[] = [];
  for (const streamId of streamIds) {
    const definition = byId.get(streamId);
    if (!definition) continue;
    if (deps.deadline !== undefined && deps.clock.now() >= deps.deadline) {
      // Out of time: the next planner run finds the rest still due.
      outcomes.push({ kind: 'skipped', streamId, reason: 'stopped' });
      continue;
    }
    outcomes.push(await pollStream(definition, deps, owner));
  }
  return outcomes;
}
