import { mapWithConcurrency } from '../concurrency.ts';
import type { PollDeps, StreamDefinition } from './poll-context.ts';
import { type PollOutcome, pollStream } from './poll-stream.ts';
import { dueStreams } from './schedule.ts';

/** Streams polled at once by one process. */
export const POLL_CONCURRENCY_DEFAULT = 4;

/**
 * One planner tick run in-process: reads every stream state, picks the due streams and polls
 * them with bounded concurrency. In AWS the planner enqueues poll jobs instead and each
 * poller Lambda calls {@link pollStream} for one stream.
 */
export async function pollDueStreams(
  definitions: readonly StreamDefinition[],
  deps: PollDeps,
  owner: string,
  concurrency = POLL_CONCURRENCY_DEFAULT,
): Promise<PollOutcome[]> {
  const states = new Map((await deps.store.listStreams()).map((state) => [state.streamId, state]));
  const due = dueStreams(definitions, states, deps.clock.now());
  return mapWithConcurrency(due, concurrency, (definition) => pollStream(definition, deps, owner));
}
