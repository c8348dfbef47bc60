import { type JobEstimate, jobEstimator, type KeyedPart } from './backfill-estimate.ts';

/**
 * Jobs whose estimators a process keeps at once, the newest asked about: more than the 20 the
 * console reads every 10 s, so its readings do not push each other's samples out.
 */
const JOBS_KEPT = 32;

interface Entry {
  estimateOf: ReturnType<typeof jobEstimator>;
  /** When the sources of the last sample were read, and its estimate. */
  lastReadAt: number;
  last: JobEstimate;
}

/** One reading of a job, as {@link BackfillEstimates.estimate} takes it. */
export interface JobReading {
  jobId: string;
  /** Epoch ms the job started: its counts were 0 then (the rates' origin). */
  startedAt: number;
  /** Epoch ms its sources were read: a reading reused (see BackfillSourcesCache) is no new sample. */
  readAt: number;
  parts: readonly KeyedPart[];
  figures: Parameters<ReturnType<typeof jobEstimator>>[2];
  readDone: boolean;
}

/**
 * The estimates of the jobs the process answers about (`GET /backfill/{id}`): each job's
 * readings are the samples of its own jobEstimator, so the records density between window ends
 * and the recent rates are measured as `backfill` measures them from its own samples. The rates
 * count from the job's start (its counts were 0 then) until readings span 30 s: a process that
 * has read a job once (a cold Lambda instance, the console's first look) answers rates over the
 * whole job so far. A density needs two readings across window ends; a pass's stream guesses
 * its records by its first sync's meanwhile. A reading reused (same `readAt`) answers the
 * estimate it gave. In memory: another process starts its own samples.
 */
export class BackfillEstimates {
  private readonly entries = new Map<string, Entry>();

  /** The job's estimate at `reading.readAt`, its readings before in this process counted. */
  estimate(reading: JobReading): JobEstimate {
    const kept = this.entries.get(reading.jobId);
    if (kept && kept.lastReadAt === reading.readAt) return kept.last;
    const estimateOf = kept?.estimateOf ?? jobEstimator({ origin: reading.startedAt });
    const last = estimateOf(reading.readAt, reading.parts, reading.figures, reading.readDone);
    this.entries.delete(reading.jobId);
    this.entries.set(reading.jobId, { estimateOf, lastReadAt: reading.readAt, last });
    while (this.entries.size > JOBS_KEPT) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
    return last;
  }
}
