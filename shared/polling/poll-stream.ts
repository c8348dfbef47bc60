import { ConnectorError } from '../connector/errors.ts';
import { deleteSnapshotsBefore } from '../state/snapshots-before.ts';
import { isRemovedStream, StateConflictError, type StreamState } from '../state/state-store.ts';
import { noteWritesUnawareOfPass } from './backfill-state.ts';
import { deadlinePace } from './deadline-pace.ts';
import {
  PartialPollFailure,
  type PollDeps,
  type StateHandle,
  type StrategyRun,
  type StreamDefinition,
  stateHandle,
} from './poll-context.ts';
import { failureBackoffMs, nextDueTime, nextPollTime } from './schedule.ts';
import { runBackfillPass } from './strategies/backfill-pass.ts';
import { runDeletions } from './strategies/deletions.ts';
import { runProductPrices } from './strategies/product-prices.ts';
import { runSnapshot } from './strategies/snapshot.ts';
import { runSweep, sweepDue } from './strategies/sweep.ts';
import { runTrackedIds } from './strategies/tracked-ids.ts';
import { pastDeadline, runWindowed } from './strategies/windowed.ts';

/**
 * Snapshots of before a reset a poll run deletes at most (see StreamState.resetAt): a few
 * seconds of writes on one DynamoDB partition key, whatever the stream held.
 */
export const RESET_SNAPSHOTS_DELETED_PER_POLL = 5_000;

/**
 * How long a stream parked by an authorization error waits before its refused credentials are
 * tried again, with one poll (see {@link pollStream}).
 */
export const PARKED_RETRY_MS = 30 * 60_000;

/** Default lease: longer than any single poll run (a Lambda poller times out after 5 minutes). */
export const POLL_LEASE_TTL_MS = 6 * 60_000;

/**
 * Records a poll run set aside for breaking their schema and saved as such (see
 * StreamState.lastSetAside), and the last one's error: logged once per poll and counted in the
 * RecordsSetAside metric. Absent when it set none aside.
 */
export interface PollSetAside {
  records: number;
  error: string;
}

/** What one poll run of a stream ended with. */
export type PollOutcome =
  | {
      kind: 'polled';
      streamId: string;
      caughtUp: boolean;
      setAside?: PollSetAside;
    }
  | {
      kind: 'skipped';
      streamId: string;
      reason: 'leased' | 'parked' | 'stopped' | 'changed';
      /** A run stopped midway: what the pages it saved set aside (no later run reads them again). */
      setAside?: PollSetAside;
    }
  | {
      kind: 'failed';
      streamId: string;
      error: string;
      parked: boolean;
      retryAt: number;
      /**
       * What pages saved before the failure set aside: the run that resumes after them does not
       * read them again, so no later outcome tells of those records.
       */
      setAside?: PollSetAside;
    };

/** The records set aside since `before` (a `recordsSetAside` count) that `state` holds. */
function setAsideSince(before: number, state: StreamState): { setAside?: PollSetAside } {
  const records = (state.recordsSetAside ?? 0) - before;
  const last = state.lastSetAside;
  return records > 0 && last ? { setAside: { records, error: last.error } } : {};
}

/** The state of a stream never polled before (its ids and entity type are all it takes). */
export function initialStreamState(
  definition: Pick<StreamDefinition, 'streamId' | 'connectionId'> & {
    spec: { entityType: string };
  },
  now: number,
): StreamState {
  return {
    streamId: definition.streamId,
    connectionId: definition.connectionId,
    entityType: definition.spec.entityType,
    watermark: null,
    window: null,
    lastPollAt: null,
    lastSuccessAt: null,
    nextDueAt: now,
    consecutiveFailures: 0,
    lastError: null,
    parked: false,
    parkedReason: null,
    lastSweepAt: null,
    initialSyncDone: false,
    version: 0,
  };
}

/**
 * Deletes snapshots stored before the stream's reset (StreamState.resetAt), up to
 * {@link RESET_SNAPSHOTS_DELETED_PER_POLL} a run; stages `resetAt: null` once none is left.
 * Returns whether none is left: the first sync begins only then, against no snapshot of before.
 */
async function dropSnapshotsOfBeforeReset(
  definition: StreamDefinition,
  deps: PollDeps,
  state: StateHandle,
): Promise<boolean> {
  const resetAt = state.current.resetAt;
  if (resetAt === null || resetAt === undefined) return true;
  const { noneLeft } = await deleteSnapshotsBefore(
    deps.store,
    definition.streamId,
    resetAt,
    RESET_SNAPSHOTS_DELETED_PER_POLL,
  );
  if (!noneLeft) return false;
  state.stage({ resetAt: null });
  return true;
}

async function runStrategy(
  definition: StreamDefinition,
  deps: PollDeps,
  state: StateHandle,
): Promise<StrategyRun> {
  const spec = definition.spec;
  switch (spec.strategy) {
    case 'windowed': {
      // A backfill pass takes the time between two live polls once the live windows caught up,
      // until it is done (or the run must stop: the stream is then due again at once).
      for (;;) {
        const liveStartedAt = deps.clock.now();
        const result = await runWindowed(definition, spec, deps, state);
        if (!result.caughtUp) return false;
        if (sweepDue(definition, state.current, deps.clock.now())) {
          // The live windows' commit (staged for the success save) is written first: a sweep
          // cut at the invocation's deadline (or a stop) saves only its own position, and the
          // next run would read those windows again.
          await state.save({});
          const ended = spec.sweep
            ? await runSweep(definition, spec, deps, state)
            : await runDeletions(definition, spec, deps, state);
          // Cut at the deadline: due again at once, for the next job to go on.
          if (!ended) return false;
        }
        // Its pass waits for a catch-up slot: this run was its live poll.
        if (deps.passWaits) return true;
        const pass = await runBackfillPass(definition, spec, deps, state, liveStartedAt);
        // Paused by the backlog: the stream is live and caught up, due again at its interval
        // (not at once: each run reads its live window first, a request).
        if (pass.done || pass.paused) return true;
        if (pastDeadline(deps)) return false;
      }
    }
    // False: stopped short of the deadline (see deadlinePace), due again at once.
    case 'snapshot':
      return runSnapshot(definition, spec, deps, state);
    case 'tracked-ids':
      return runTrackedIds(definition, spec, deps, state);
    case 'product-prices':
      return runProductPrices(definition, deps, state);
  }
}

function describeError(error: unknown): string {
  if (error instanceof ConnectorError) {
    const requestId = error.requestId ? ` (RequestId ${error.requestId})` : '';
    return boundedErrorText(error.message, requestId);
  }
  return boundedErrorText(
    error instanceof Error ? `${error.name}: ${error.message}` : String(error),
  );
}

/**
 * The most characters of an error a stream's state keeps (`lastError`, and `parkedReason` with
 * its prefix): the state is one DynamoDB item, capped at 400 KB, and a connector error's
 * Message is the server's text, of any length (a proxy's page, a verbose validation message).
 * Its start names what failed; the rest is cut, saying how much.
 */
export const STORED_ERROR_MAX_CHARS = 2_000;

/** `text` cut to fit {@link STORED_ERROR_MAX_CHARS} with `suffix` kept whole. Pure. */
function boundedErrorText(text: string, suffix = ''): string {
  if (text.length + suffix.length <= STORED_ERROR_MAX_CHARS) return text + suffix;
  const note = (cut: number) => `… (${text.length - cut} more characters)`;
  let cut = STORED_ERROR_MAX_CHARS - suffix.length - note(0).length;
  // Never half a surrogate pair: a lone one is not UTF-8, which DynamoDB stores.
  const last = text.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut -= 1;
  return text.slice(0, cut) + note(cut) + suffix;
}

/**
 * Whether a parked stream stays parked for a client authenticating with `credential`: it does
 * when that is the credential that was refused, or when the client's is unknown (a test
 * double). A stream parked under other credentials (fixed since), or before the refused ones
 * were noted, is polled again, from its kept watermark. Pure.
 * @example staysParked({ parked: true, parkedCredential: 'a' }, 'b') === false
 */
export function staysParked(
  state: Pick<StreamState, 'parked' | 'parkedCredential'>,
  credential: string | undefined,
): boolean {
  if (!state.parked) return false;
  return credential === undefined || state.parkedCredential === credential;
}

/**
 * Whether a stream that {@link staysParked} is due a retry of its refused credentials at `now`:
 * {@link PARKED_RETRY_MS} after the poll that parked it (or the last retry). The authorization
 * error also stands for a permission the token lacks, which is granted on the service's side,
 * the credentials unchanged: without a retry the stream would stay parked for good, and its
 * only way out (`streams reset`) forgets its watermark. Pure.
 * @example parkedRetryDue({ lastPollAt: 0 }, 30 * 60_000) === true
 */
export function parkedRetryDue(state: Pick<StreamState, 'lastPollAt'>, now: number): boolean {
  return now - (state.lastPollAt ?? Number.NEGATIVE_INFINITY) >= PARKED_RETRY_MS;
}

/**
 * Polls one stream once: takes the lease (a conditional write with expiry, so two pollers
 * never run one stream; a {@link PollDeps.solePoller} takes none), runs its strategy, then
 * records success or failure. A failed run keeps its watermark and backs off; an
 * authorization error parks the stream (design.md, Connector errors) while its connection's
 * credentials stay those refused ({@link staysParked}): no request is made, and the stream is
 * looked at again at its due times, so fixed credentials resume it from its watermark. The
 * refused ones are tried again, with one poll, every {@link PARKED_RETRY_MS}
 * ({@link parkedRetryDue}): a permission granted since resumes it the same way. Never throws
 * for connector failures: they are outcomes.
 */
export async function pollStream(
  definition: StreamDefinition,
  deps: PollDeps,
  owner: string,
  /** The stream's state as the caller just read it under its own lease (`undefined`: none stored). */
  known?: { stored: StreamState | undefined },
): Promise<PollOutcome> {
  const { streamId } = definition;
  if (!deps.solePoller) {
    const lease = await deps.store.acquireLease(
      streamId,
      owner,
      POLL_LEASE_TTL_MS,
      deps.clock.now(),
    );
    if (!lease) return { kind: 'skipped', streamId, reason: 'leased' };
  }
  try {
    const stored =
      (known ? known.stored : await deps.store.getStream(streamId)) ??
      initialStreamState(definition, deps.clock.now());
    // Stopped before anything is written (a stored connection disabled or removed meanwhile).
    if (deps.signal?.aborted) return { kind: 'skipped', streamId, reason: 'stopped' };
    const state = stateHandle(deps.store, stored);
    if (staysParked(stored, deps.client.credential) && !parkedRetryDue(stored, deps.clock.now())) {
      // Nothing to ask the connector with the credentials it refused: looked at again at the
      // stream's next due time (in case they change meanwhile), without a request.
      const now = deps.clock.now();
      await state.save({
        nextDueAt: nextDueTime(now, definition.intervalMs, definition.phaseMs ?? 0),
      });
      return { kind: 'skipped', streamId, reason: 'parked' };
    }
    const startedAt = deps.clock.now();
    const setAsideBefore = stored.recordsSetAside ?? 0;
    try {
      // The tombstone of a stream removed with its connection, the connection added again since
      // (StreamState.removedAt): taken over before any other write, so the background purge
      // leaves the state (a purge that deleted it first makes this save lose: `changed`, and the
      // next poll starts with none); its `resetAt` still has the old snapshots deleted first.
      if (isRemovedStream(stored)) await state.save({ removedAt: null });
      // Parked by credentials other than these (a token fixed with `remove --keep-state` and
      // `add`, or a restart): unparked from the run's first save, so `streams list` shows its
      // first sync or window in progress, not the refusal, for as long as the run takes.
      if (stored.parked && !staysParked(stored, deps.client.credential))
        await state.save({ parked: false, parkedReason: null });
      // One pace for the run's windows, backfill slices and sweep, when its job has none.
      const paced =
        deps.pace || deps.deadline === undefined ? deps : { ...deps, pace: deadlinePace(deps) };
      const ran =
        (await dropSnapshotsOfBeforeReset(definition, deps, state)) &&
        (await runStrategy(definition, paced, state));
      const caughtUp = ran !== false;
      const now = deps.clock.now();
      await state.save({
        lastPollAt: startedAt,
        lastSuccessAt: now,
        consecutiveFailures: 0,
        lastError: null,
        parked: false,
        parkedReason: null,
        nextDueAt:
          typeof ran === 'object'
            ? ran.dueAt
            : caughtUp
              ? nextPollTime(definition, startedAt)
              : now,
      });
      return {
        kind: 'polled',
        streamId,
        caughtUp,
        ...setAsideSince(setAsideBefore, state.current),
      };
    } catch (error) {
      // Stopping the process is not the stream's fault: its state already holds the resume point.
      if (deps.signal?.aborted)
        return {
          kind: 'skipped',
          streamId,
          reason: 'stopped',
          // What a run cut short saved, and no later run reads again.
          ...setAsideSince(setAsideBefore, state.saved),
        };
      // The stream's state changed under the poll (a reset or a backfill started meanwhile): what
      // it read is void and the new state stands, to be polled from at its next due time. Not a
      // failure of the stream: an event it published keeps its id if the change is found again.
      if (error instanceof StateConflictError) {
        // An emitting backfill that began under the poll: the snapshots it stored still await
        // the backfill's `created`. Best effort: failing, they go without it, as before.
        await noteWritesUnawareOfPass(deps.store, stored, deps.clock.now()).catch(() => undefined);
        return { kind: 'skipped', streamId, reason: 'changed' };
      }
      const failures = state.current.consecutiveFailures + 1;
      if (error instanceof PartialPollFailure) {
        // Its work is staged in `state` as after a success: saved, and due at its interval.
        const refusal = describeError(error.refusal);
        const retryAt = nextPollTime(definition, startedAt);
        await state.save({
          lastPollAt: startedAt,
          consecutiveFailures: failures,
          lastError: refusal,
          nextDueAt: retryAt,
        });
        return {
          kind: 'failed',
          streamId,
          error: refusal,
          parked: false,
          retryAt,
          ...setAsideSince(setAsideBefore, state.current),
        };
      }
      const parked = error instanceof ConnectorError && error.isAuthorization;
      const retryAt = deps.clock.now() + failureBackoffMs(failures, definition.intervalMs);
      const latest = (await deps.store.getStream(streamId)) ?? state.current;
      await deps.store.saveStream(
        {
          ...latest,
          lastPollAt: startedAt,
          consecutiveFailures: failures,
          lastError: describeError(error),
          nextDueAt: retryAt,
          parked,
          parkedReason: parked ? `authorization failed: ${describeError(error)}` : null,
          ...(parked && deps.client.credential !== undefined
            ? { parkedCredential: deps.client.credential }
            : {}),
        },
        latest.version,
      );
      // Only what was saved: what the failure left unsaved is read again, and told, by the next run.
      return {
        kind: 'failed',
        streamId,
        error: describeError(error),
        parked,
        retryAt,
        ...setAsideSince(setAsideBefore, latest),
      };
    }
  } finally {
    if (!deps.solePoller) await deps.store.releaseLease(streamId, owner);
  }
}
