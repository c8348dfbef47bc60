import { anySignal } from '../concurrency.ts';
import type { StreamState } from '../state/state-store.ts';
import { isLiveStream } from './backfill-state.ts';
import { deadlinePace } from './deadline-pace.ts';
import { abortAtDeadline } from './invocation-deadline.ts';
import { type PollDeps, type StreamDefinition, withSavedStates } from './poll-context.ts';
import { POLL_LEASE_TTL_MS, type PollOutcome, pollStream } from './poll-stream.ts';
import { streamDueAt } from './schedule.ts';
import { sweepDue } from './strategies/sweep.ts';
import { plansLiveWindow, type WindowSettings } from './windows.ts';

/** What one connection job did, and when the connection is next due. */
export interface ConnectionPollResult {
  outcomes: PollOutcome[];
  /** Epoch ms of the earliest next poll among its streams (now for a stream never polled). */
  nextDueAt: number | undefined;
  /**
   * The state of each stream as the job last read or wrote it (`undefined`: read, never stored),
   * so what follows the job (its metrics) needs no read of its own.
   */
  states: ReadonlyMap<string, StreamState | undefined>;
}

/**
 * One poll job of a connection: polls each listed stream that is due by `dueBy` (all of
 * them when absent) in turn with one client (one budget per token) until the deadline, the
 * caught-up streams first when their states are read for `dueBy` (a stream with bulk work runs
 * until the deadline, so it goes last and takes what the invocation has left). A
 * stream no longer defined (entity dropped) is skipped; a parked one makes no request unless its
 * credentials changed (`staysParked`) or their retry is due (`parkedRetryDue`). One lease on the connection
 * guards the whole job (a conditional put and a delete per job, not per stream), so an
 * overlapping job of the same connection polls nothing and reports its streams `leased`; its
 * streams then take none of their own, and a stream's due check is its poll's read. Connector
 * failures are recorded on the stream by pollStream; store and publish failures propagate so
 * the job is retried. The connection's next due time comes from the states the job read and
 * wrote ({@link streamDueAt}): a stream is read again only when the job neither read nor wrote it.
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
  const listed = streamIds.filter((streamId) => byId.has(streamId));
  const leaseId = connectionLeaseId(definitions[0]?.connectionId ?? '');
  const takesLease = !deps.solePoller && listed.length > 0;
  const finish = async (outcomes: PollOutcome[]): Promise<ConnectionPollResult> => ({
    outcomes,
    nextDueAt: await earliestNextDue(definitions, known, deps),
    states: known,
  });
  if (takesLease) {
    const now = deps.clock.now();
    // Until the job's deadline and a minute more (a stream's poll time without one).
    const ttlMs = (deps.deadline ?? now + POLL_LEASE_TTL_MS) - now + LEASE_SLACK_MS;
    if (!(await deps.store.acquireLease(leaseId, owner, ttlMs, now))) {
      return finish(
        listed.map((streamId): PollOutcome => ({ kind: 'skipped', streamId, reason: 'leased' })),
      );
    }
  }
  // Waits and requests past the deadline stop there (a long Retry-After, the budget's pause):
  // their stream is left as its last page saved it, for the next job.
  const stop = deps.deadline === undefined ? undefined : abortAtDeadline(deps.clock, deps.deadline);
  const signal = anySignal(deps.signal, stop?.signal);
  try {
    const observed: PollDeps = {
      ...deps,
      ...(signal ? { signal } : {}),
      // One pace for the job: a stream polled after others judges its first request by theirs.
      ...(deps.deadline === undefined || deps.pace ? {} : { pace: deadlinePace(deps) }),
      // The connection's lease holds every stream of the job.
      solePoller: true,
      ...(dueBy === undefined ? {} : { dueBy }),
      store: withSavedStates(deps.store, (state) => known.set(state.streamId, state)),
    };
    const due: { streamId: string; state: StreamState | undefined }[] = [];
    for (const streamId of listed) {
      let state: StreamState | undefined;
      if (dueBy !== undefined) {
        state = await deps.store.getStream(streamId);
        known.set(streamId, state);
        if (state && streamDueAt(byId.get(streamId)!, state) > dueBy) continue;
      }
      due.push({ streamId, state });
    }
    // Live polls go first (design.md, Connector budget): a stream with bulk work (a first sync,
    // a catch-up window, a backfill pass, a sweep) runs until it is done or the deadline, so it
    // goes after the caught-up streams, and takes what the invocation has left.
    const now = deps.clock.now();
    const live = ({ streamId, state }: (typeof due)[number]) =>
      isLive(byId.get(streamId)!, state, now, deps.windows);
    const ordered =
      dueBy === undefined ? due : [...due.filter(live), ...due.filter((stream) => !live(stream))];
    const outcomes: PollOutcome[] = [];
    for (const { streamId, state } of ordered) {
      if (signal?.aborted || (deps.deadline !== undefined && deps.clock.now() >= deps.deadline)) {
        // Stopped or out of time: the next planner run finds the rest still due.
        outcomes.push({ kind: 'skipped', streamId, reason: 'stopped' });
        continue;
      }
      // Read under the lease at the job's start: the due check's state is the poll's, no second
      // read (a state changed since by the admin API fails the poll's first save: `changed`).
      outcomes.push(
        await pollStream(
          byId.get(streamId)!,
          observed,
          owner,
          dueBy === undefined ? undefined : { stored: state },
        ),
      );
    }
    return await finish(outcomes);
  } finally {
    stop?.cancel();
    if (takesLease) await deps.store.releaseLease(leaseId, owner);
  }
}

/**
 * Whether a stream's next poll is a live one alone: a live stream ({@link isLiveStream}) with no
 * sweep due at `now` (a sweep asks for every stored id it has not checked yet, and runs until
 * it is done or the deadline), whose next window is a live one ({@link isLiveWindow}: one from
 * further back, after its polls failed or stopped for a while, is catch-up work of any number
 * of pages). Pure.
 */
function isLive(
  definition: StreamDefinition,
  state: StreamState | undefined,
  now: number,
  windows: WindowSettings,
): boolean {
  if (state === undefined || !isLiveStream(state)) return false;
  const { spec } = definition;
  if (spec.strategy !== 'windowed') return true;
  if (sweepDue(definition, state, now)) return false;
  return plansLiveWindow(state.watermark, now, windows, definition.intervalMs);
}

/** How long a connection's lease outlasts its job's deadline (a job killed at its timeout). */
const LEASE_SLACK_MS = 60_000;

/** The lease of a connection's poll jobs (beside its streams' state items). */
export function connectionLeaseId(connectionId: string): string {
  return `connection:${connectionId}`;
}

async function earliestNextDue(
  definitions: readonly StreamDefinition[],
  known: ReadonlyMap<string, StreamState | undefined>,
  deps: PollDeps,
): Promise<number | undefined> {
  let earliest: number | undefined;
  for (const definition of definitions) {
    const { streamId } = definition;
    const state = known.has(streamId) ? known.get(streamId) : await deps.store.getStream(streamId);
    const due = state ? streamDueAt(definition, state) : deps.clock.now();
    earliest = earliest === undefined ? due : Math.min(earliest, due);
  }
  return earliest;
}
