import type { StreamState } from '../state/state-store.ts';
import type { DeliveryCounts } from '../webhooks/delivery-counter.ts';
import type { BackfillJob } from './backfill-jobs.ts';

/**
 * What reading a job's progress takes from the stores, per stream of the job (see
 * backfillProgress in backfill.ts): its state (a GetItem each in AWS), the dispatcher's counts
 * of its events (a Query each) and which streams are still configured.
 */
export interface BackfillSources {
  /** Each stream's state, in the order of the job's `streamIds`. */
  states: readonly (StreamState | undefined)[];
  /** The counts of each stream's events in its delivery range, by stream id. */
  delivered: ReadonlyMap<string, DeliveryCounts>;
  /** Those of the job's streams still configured. */
  configuredIds: ReadonlySet<string>;
  /** Epoch ms they were read. */
  readAt: number;
}

/** Streams whose sources a job's readings take per second at most, on average (see {@link progressRefreshMs}). */
export const PROGRESS_STREAMS_READ_PER_SECOND = 250;

/**
 * The longest a job's sources are reused: below the 60 s `backfill` waits for a figure to move
 * before it gives up, with room for a reading that is itself slow.
 */
export const PROGRESS_REFRESH_MAX_MS = 30_000;

/**
 * How long the sources of a job over `streamCount` streams are reused before they are read
 * again: whole seconds, enough that its readings take {@link PROGRESS_STREAMS_READ_PER_SECOND}
 * streams a second at most however often the job is asked about, up to
 * {@link PROGRESS_REFRESH_MAX_MS}. 0 (read afresh every time) below that many streams. Pure.
 * @example progressRefreshMs(13) // 0
 * @example progressRefreshMs(6_500) // 26_000: 250 streams read a second, not 6,500
 */
export function progressRefreshMs(streamCount: number): number {
  const seconds = Math.floor(streamCount / PROGRESS_STREAMS_READ_PER_SECOND);
  return Math.min(PROGRESS_REFRESH_MAX_MS, seconds * 1_000);
}

/** Jobs whose sources are kept at once: a reading of 6,500 streams holds their states. */
const JOBS_KEPT = 4;

/**
 * What decides which counts a job's reading holds: the job and the streams' ends of range
 * (`deliveredUntil`, set when a later backfill or reset takes a stream over). Pure.
 */
function rangesKey(job: BackfillJob): string {
  return `${job.id}\n${JSON.stringify(Object.entries(job.deliveredUntil ?? {}).sort())}`;
}

interface Entry {
  key: string;
  readAt: number;
  sources: Promise<BackfillSources>;
}

/**
 * Reuses a job's sources between readings of its progress, in the process answering them
 * (the admin function's warm instance, the local `start`): `GET /backfill/{id}` costs a
 * GetItem and a Query per stream of the job, and `backfill` asks every second, so a job of
 * 500 hotels × 13 entity types took 13,000 requests a second and seconds per answer. The
 * sources are read again once {@link progressRefreshMs} has passed since they were read (none
 * below 250 streams: every reading is fresh), so a job's readings take at most
 * {@link PROGRESS_STREAMS_READ_PER_SECOND} streams' requests a second on average whoever asks,
 * and an answer in between costs none. The figures then lag by that interval at most (26 s at
 * 6,500 streams) and never run ahead: counters and stream counts only grow, and a stream's
 * state and counts are read together, so a figure reused is one the job had, and `done` or
 * `deliveryDone` only come later, never wrongly. What the time decides (elapsed, the time
 * left, when an ended part was first seen) is worked out at each answer. A stream taken over
 * meanwhile changes the job's ranges: its sources are read again at once. Requests made while
 * a reading runs share it; a reading that fails is not kept.
 * Another process (a cold Lambda instance) reads its own once.
 */
export class BackfillSourcesCache {
  private readonly entries = new Map<string, Entry>();

  /** The job's sources as read at most {@link progressRefreshMs} ago at `now`, else `read()`'s. */
  sources(
    job: BackfillJob,
    now: number,
    read: () => Promise<BackfillSources>,
  ): Promise<BackfillSources> {
    const key = rangesKey(job);
    const kept = this.entries.get(job.id);
    if (kept && kept.key === key && now - kept.readAt < progressRefreshMs(job.streamIds.length)) {
      return kept.sources;
    }
    const entry: Entry = { key, readAt: now, sources: read() };
    this.entries.delete(job.id);
    this.entries.set(job.id, entry);
    while (this.entries.size > JOBS_KEPT) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
    entry.sources.catch(() => {
      if (this.entries.get(job.id) === entry) this.entries.delete(job.id);
    });
    return entry.sources;
  }
}
