import type { StreamDefinition } from '../polling/poll-context.ts';
import { initialStreamState } from '../polling/poll-stream.ts';
import {
  type BackfillPass,
  StateConflictError,
  type StateStore,
  type StreamState,
} from '../state/state-store.ts';
import type { BackfillJob } from './backfill-jobs.ts';

/** Attempts at replacing a stream state that a poller keeps writing meanwhile. */
const RESET_ATTEMPTS_MAX = 3;

/**
 * Starts one stream's part of a backfill. A stream that completed its first sync keeps its
 * state and snapshots and gets a pass (see BackfillPassSchema) from the history start to its
 * watermark (where its live polls had read), read beside its live polls, which go on: no live
 * change is lost or waits.
 * Any other stream is reset (a fresh state whose poller deletes the old snapshots, see
 * StreamState.resetAt) and its first sync is the backfill, in the job's mode (`emit`: `created` events; `baseline`: stored silently) whatever
 * INITIAL_SYNC says. A poller saving meanwhile makes the conditional save lose; the start is
 * then repeated.
 */
export async function startStreamBackfill(
  store: StateStore,
  definition: StreamDefinition,
  job: Pick<BackfillJob, 'id' | 'emit' | 'startedAt'>,
  /** The stream's state as the caller just read it, for the first attempt (`undefined`: none). */
  known?: { stored: StreamState | undefined },
): Promise<void> {
  const now = job.startedAt;
  for (let attempt = 1; ; attempt++) {
    const stored =
      attempt === 1 && known ? known.stored : await store.getStream(definition.streamId);
    try {
      if (stored?.initialSyncDone && stored.watermark !== null) {
        const pass: BackfillPass = {
          kind: 'pass',
          jobId: job.id,
          emit: job.emit,
          startedAt: now,
          // Up to where its live polls had read: what changed since is theirs to publish (an
          // entity changed just before the start would otherwise also be read by the pass, in
          // its new form, after the live poll's `created` and `updated`).
          endUtc: stored.watermark,
          watermark: null,
          window: null,
          recordsRead: 0,
          eventsPublished: 0,
          liveEventsAtStart: stored.eventsPublished ?? 0,
          doneAt: null,
        };
        await store.saveStream({ ...stored, backfill: pass, nextDueAt: now }, stored.version);
        return;
      }
      await store.saveStream(
        {
          ...initialStreamState(definition, now),
          initialSync: job.emit ? 'emit' : 'baseline',
          backfill: { kind: 'first-sync', jobId: job.id },
          resetAt: now,
        },
        stored?.version ?? 0,
      );
      return;
    } catch (error) {
      if (!(error instanceof StateConflictError) || attempt >= RESET_ATTEMPTS_MAX) throw error;
    }
  }
}

/**
 * Replaces a stream's state with `fresh` (a reset's), marked `resetAt: now`: its snapshots of
 * before are deleted by its poller, a bounded number per poll, before its first sync begins
 * (StreamState.resetAt), not here; so the request's work does not grow with the stream (a
 * stream of 100,000 snapshots took longer than API Gateway's 29 s to delete). A poller saving
 * meanwhile makes the conditional save lose; it is then repeated. Returns the state saved.
 */
export async function saveResetState(
  store: StateStore,
  fresh: StreamState,
  now: number,
  /** The stream's state as the caller just read it, for the first attempt (`undefined`: none). */
  known?: { stored: StreamState | undefined },
): Promise<StreamState> {
  for (let attempt = 1; ; attempt++) {
    const stored = attempt === 1 && known ? known.stored : await store.getStream(fresh.streamId);
    try {
      return await store.saveStream({ ...fresh, resetAt: now }, stored?.version ?? 0);
    } catch (error) {
      if (!(error instanceof StateConflictError) || attempt >= RESET_ATTEMPTS_MAX) throw error;
    }
  }
}
