import { CONFIGURATION } from '../configuration-error.ts';
import { withValueLength } from '../env-issues.ts';
import { ValidationError } from '../errors.ts';
/**
 * How far delivery lags detection: the undelivered backlog against its bound. The windowed
 * poller asks after each page; once the backlog is above the bound it takes the page it had
 * read ahead (requested already) and stops at that page's boundary with its window and cursor
 * saved, so the rest waits at the source (design.md,
 * Backpressure) and the next run resumes there once deliveries drain.
 */
export interface BacklogGauge {
  /** Whether the undelivered backlog is above the bound now (detection should pause). */
  aboveBound(): Promise<boolean>;
}

/** A gauge that never pauses (AWS: SQS and Lambda absorb any backlog). */
export const NO_BACKLOG_BOUND: BacklogGauge = { aboveBound: async () => false };

/**
 * Default `BRIDGE_MAX_BACKLOG`: queued messages (envelopes and deliveries) before detection
 * pauses. A waiting message costs its record on disk and a few hundred bytes of memory (the
 * queue's index, the lanes' key; typed arrays and a map that double as they fill, and the heap
 * room kept beside them). The local run's bulk lane waits while the reading has a page in hand
 * (see BulkPageWork), so a backfill's events gather here up to the bound before most are
 * delivered: with 100,000 an emitting backfill of 100,000 customers reads without pausing.
 * Measured through `change-bridge start` (docs/benchmarks.md, checks at 44f4e61 and after):
 * 100,000 customers read in 18.0 s, delivered by 62.0 s, peak 268 MB; 300,000 customers, whose
 * backlog then sits at the bound for minutes, peak 294-305 MB (270 MB with 50,000 and no wait,
 * 321 MB with 150,000 and the wait).
 */
export const DEFAULT_MAX_BACKLOG = 100_000;

/**
 * The bound from `BRIDGE_MAX_BACKLOG` (a positive integer), else {@link DEFAULT_MAX_BACKLOG}.
 * @throws ValidationError naming the variable, not showing its value.
 */
export function maxBacklogFromEnv(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_MAX_BACKLOG;
  // Decimal digits only: Number() took `0x10` for 16 and `1e3` for 1000.
  const bound = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(bound) || bound < 1)
    throw new ValidationError(CONFIGURATION, [
      {
        path: 'BRIDGE_MAX_BACKLOG',
        message: withValueLength('must be a positive integer', value),
      },
    ]);
  return bound;
}
