import { setMaxListeners } from 'node:events';
import { mapWithConcurrency } from '../concurrency.ts';
import type { StreamState } from '../state/state-store.ts';
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

/**
 * Stream states the loop reads in full per tick at most: beyond it, full reads are spaced
 * (every ceil(streams / this) ticks) and each finished poll re-reads its own stream instead,
 * so 1,000 connections of 13 streams do not read 13,000 states four times a second.
 */
export const FULL_STATE_READ_STREAMS_PER_TICK = 250;

/** A running poll loop. */
export interface PollLoop {
  /** Lets the in-flight tick finish, then resolves. */
  stop(): Promise<void>;
}

/** Options of {@link startPollLoop}. */
export interface PollLoopOptions {
  /** The streams to poll, or a function read on every tick (connections added at run time). */
  definitions: readonly StreamDefinition[] | (() => readonly StreamDefinition[]);
  deps: PollDeps;
  /**
   * The client and stop signal of a stream's connection (one client and budget per token);
   * undefined when the connection left, and the stream is not started. Default: `deps.client`.
   */
  connectionOf?: (
    definition: StreamDefinition,
  ) => { client: PollDeps['client']; signal?: AbortSignal } | undefined;
  owner: string;
  /** How often the planner looks for due streams. */
  tickMs: number;
  concurrency?: number;
  onOutcome?: (outcome: PollOutcome) => void;
  onError?: (error: unknown) => void;
}

/**
 * The local runtime's planner: every `tickMs`, starts each due stream that is not already
 * being polled, without waiting for the others, so a long first sync or backfill never holds
 * back a caught-up stream's next poll (the token's budget orders their requests). At most
 * `concurrency` streams poll at once (default: all of them). Runs until stopped.
 */
export function startPollLoop(options: PollLoopOptions): PollLoop {
  const controller = new AbortController();
  // Every stream in flight (and each of its requests waiting for the token's budget) listens
  // for the stop: more than Node's default of 10 listeners is expected, not a leak.
  setMaxListeners(0, controller.signal);
  const deps: PollDeps = { ...options.deps, signal: controller.signal };
  const given = options.definitions;
  const definitionsNow = typeof given === 'function' ? given : () => given;
  const running = new Map<string, Promise<void>>();
  let states = new Map<string, StreamState>();
  /** States re-read by finished polls while a full read was under way (null: deleted). */
  const rereadDuringFullRead = new Map<string, StreamState | null>();
  let ticksSinceFullRead = Number.POSITIVE_INFINITY;
  const start = (definition: StreamDefinition) => {
    const connection = options.connectionOf
      ? options.connectionOf(definition)
      : { client: deps.client };
    if (!connection) return;
    const runDeps: PollDeps = {
      ...deps,
      client: connection.client,
      // Stopping the process or disabling the connection both stop its poll at once.
      signal: connection.signal
        ? AbortSignal.any([controller.signal, connection.signal])
        : controller.signal,
    };
    const run = pollStream(definition, runDeps, options.owner)
      .then(async (outcome) => {
        // Its next due time, without waiting for the next full read.
        const state = await deps.store.getStream(definition.streamId);
        if (state) states.set(definition.streamId, state);
        else states.delete(definition.streamId);
        rereadDuringFullRead.set(definition.streamId, state ?? null);
        options.onOutcome?.(outcome);
      })
      .catch((error: unknown) => options.onError?.(error))
      .finally(() => running.delete(definition.streamId));
    running.set(definition.streamId, run);
  };
  const loop = (async () => {
    while (!controller.signal.aborted) {
      try {
        const definitions = definitionsNow();
        // Admin changes (reset, backfill) reach the loop through these full reads.
        const fullReadEveryTicks = Math.ceil(definitions.length / FULL_STATE_READ_STREAMS_PER_TICK);
        if (ticksSinceFullRead >= fullReadEveryTicks) {
          rereadDuringFullRead.clear();
          const listed = await deps.store.listStreams();
          states = mergeNewer(listed, rereadDuringFullRead);
          ticksSinceFullRead = 0;
        }
        ticksSinceFullRead += 1;
        const limit = options.concurrency ?? definitions.length;
        for (const definition of dueStreams(definitions, states, deps.clock.now())) {
          if (running.size >= limit) break;
          if (!running.has(definition.streamId) && !controller.signal.aborted) start(definition);
        }
      } catch (error) {
        options.onError?.(error);
      }
      await deps.clock.sleep(options.tickMs, controller.signal).catch(() => undefined);
    }
  })();
  return {
    async stop() {
      controller.abort();
      await loop;
      await Promise.all(running.values());
    },
  };
}

/**
 * A full read of the stream states, corrected by the states polls re-read while it ran: a
 * poll that finished during the read must not look due again because the read saw it before
 * (that would poll it twice). The higher version wins; a re-read that found none removes it.
 */
function mergeNewer(
  listed: readonly StreamState[],
  reread: ReadonlyMap<string, StreamState | null>,
): Map<string, StreamState> {
  const merged = new Map(listed.map((state) => [state.streamId, state]));
  for (const [streamId, state] of reread) {
    const seen = merged.get(streamId);
    if (state === null) merged.delete(streamId);
    else if (!seen || state.version > seen.version) merged.set(streamId, state);
  }
  return merged;
}
