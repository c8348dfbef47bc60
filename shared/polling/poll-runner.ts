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

/** A running poll loop. */
export interface PollLoop {
  /** Lets the in-flight tick finish, then resolves. */
  stop(): Promise<void>;
}

/** Options of {@link startPollLoop}. */
export interface PollLoopOptions {
  definitions: readonly StreamDefinition[];
  deps: PollDeps;
  owner: string;
  /** How often the planner looks for due streams. */
  tickMs: number;
  concurrency?: number;
  onOutcome?: (outcome: PollOutcome) => void;
  onError?: (error: unknown) => void;
}

/** Runs {@link pollDueStreams} every `tickMs` until stopped (the local runtime's planner). */
export function startPollLoop(options: PollLoopOptions): PollLoop {
  const controller = new AbortController();
  const loop = (async () => {
    while (!controller.signal.aborted) {
      try {
        const outcomes = await pollDueStreams(
          options.definitions,
          { ...options.deps, signal: controller.signal },
          options.owner,
          options.concurrency,
        );
        for (const outcome of outcomes) options.onOutcome?.(outcome);
      } catch (error) {
        options.onError?.(error);
      }
      await options.deps.clock.sleep(options.tickMs, controller.signal).catch(() => undefined);
    }
  })();
  return {
    async stop() {
      controller.abort();
      await loop;
    },
  };
}
