import { deleteSnapshotsBefore } from '../state/snapshots-before.ts';
import {
  isRemovedStream,
  StateConflictError,
  type StateStore,
  type StreamState,
} from '../state/state-store.ts';
import { initialStreamState, RESET_SNAPSHOTS_DELETED_PER_POLL } from './poll-stream.ts';

/**
 * How a removed stream's state and snapshots go: `now`, inside the request (the local `start`:
 * no gateway cuts it off), or `background` (the AWS admin API, behind API Gateway's 29 s): the
 * request leaves a tombstone (StreamState.removedAt) and {@link purgeRemovedStreams} deletes
 * the rest later, in bounded steps.
 */
export type StateRemoval = 'now' | 'background';

/** Snapshots one stream's purge step deletes at most (as a reset's poll, a few seconds of writes). */
export const REMOVED_SNAPSHOTS_DELETED_PER_STEP = RESET_SNAPSHOTS_DELETED_PER_POLL;

/** Removed streams one purge step reads (the rest wait for the next step). */
export const REMOVED_STREAMS_PER_STEP = 100;

/** Saves of a tombstone a poll saving meanwhile may refuse before the removal fails. */
const TOMBSTONE_ATTEMPTS_MAX = 3;

/**
 * Removes a stream's state and snapshots. `now`: at once (StateStore.deleteStream, work that
 * grows with the snapshots). `background`: a fixed number of writes however many snapshots the
 * stream holds: its state is replaced by a tombstone (a fresh state with `removedAt` and
 * `resetAt` at `now`), which no listing shows, and noted for the purge; a poll saving meanwhile
 * makes the conditional save lose, and it is repeated. Safe to run again.
 */
export async function removeStream(
  store: StateStore,
  stream: Pick<StreamState, 'streamId' | 'connectionId' | 'entityType'>,
  now: number,
  removal: StateRemoval,
): Promise<void> {
  if (removal === 'now') return store.deleteStream(stream.streamId);
  const tombstone: StreamState = {
    ...initialStreamState(
      {
        streamId: stream.streamId,
        connectionId: stream.connectionId,
        spec: { entityType: stream.entityType },
      },
      now,
    ),
    resetAt: now,
    removedAt: now,
  };
  for (let attempt = 1; ; attempt++) {
    const stored = await store.getStream(stream.streamId);
    try {
      await store.saveStream(tombstone, stored?.version ?? 0);
      break;
    } catch (error) {
      if (!(error instanceof StateConflictError) || attempt >= TOMBSTONE_ATTEMPTS_MAX) throw error;
    }
  }
  // Noted after: a purge never finds the note before its tombstone. Cut off in between, the
  // tombstone is hidden but not purged: running the removal (or reset) again notes it.
  await store.markStreamRemoved(stream.streamId, now);
}

/** Options of {@link purgeRemovedStreams}. */
export interface PurgeOptions {
  /** The time now (epoch ms), read for the deadline. */
  now: () => number;
  /** Epoch ms: no stream is begun at or after it (absent: none). */
  deadline?: number;
  /** Snapshots deleted per stream (default {@link REMOVED_SNAPSHOTS_DELETED_PER_STEP}). */
  snapshotsPerStep?: number;
}

/** What one purge step did. */
export interface PurgeResult {
  /** Tombstones deleted with their last snapshots. */
  streamsPurged: number;
  snapshotsDeleted: number;
  /** Whether nothing is left to purge (false: run another step). */
  done: boolean;
}

/**
 * One step of the background removal: for each stream noted removed, deletes up to
 * `snapshotsPerStep` of its snapshots stored before its removal; a stream with none left loses
 * its tombstone (only as it was read: a connection added again meanwhile took it over, and its
 * poller deletes the rest) and its note. A note whose stream is no tombstone (taken over, gone)
 * is dropped. A note is dropped only as it was listed (its removedAt): the stream removed again
 * meanwhile keeps its new note, and a later step purges it. Safe to run twice at once and to cut off anywhere: running it again goes on.
 */
export async function purgeRemovedStreams(
  store: StateStore,
  options: PurgeOptions,
): Promise<PurgeResult> {
  const perStep = options.snapshotsPerStep ?? REMOVED_SNAPSHOTS_DELETED_PER_STEP;
  const noted = await store.listRemovedStreams(REMOVED_STREAMS_PER_STEP);
  let done = noted.length < REMOVED_STREAMS_PER_STEP;
  let streamsPurged = 0;
  let snapshotsDeleted = 0;
  // Each note is dropped only as it was listed: a later removal of its stream (the connection
  // added again, polled and removed again meanwhile) notes it anew, and that note stays.
  for (const note of noted) {
    if (options.deadline !== undefined && options.now() >= options.deadline) {
      done = false;
      break;
    }
    const { streamId } = note;
    const state = await store.getStream(streamId);
    if (!state || !isRemovedStream(state)) {
      if (!(await store.unmarkStreamRemoved(note))) done = false;
      continue;
    }
    const before = state.resetAt ?? state.removedAt!;
    const { deleted, noneLeft } = await deleteSnapshotsBefore(store, streamId, before, perStep);
    snapshotsDeleted += deleted;
    if (!noneLeft) {
      done = false;
      continue;
    }
    if (await store.deleteStreamState(streamId, state.version)) {
      streamsPurged += 1;
      if (!(await store.unmarkStreamRemoved(note))) done = false;
      continue;
    }
    // Changed since it was read: taken over (its poller deletes what is left), or removed again
    // (a tombstone of a later instant, for the next step).
    const now = await store.getStream(streamId);
    if (now && isRemovedStream(now)) done = false;
    else if (!(await store.unmarkStreamRemoved(note))) done = false;
  }
  return { streamsPurged, snapshotsDeleted, done };
}
