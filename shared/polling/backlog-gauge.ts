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
 * pauses. A waiting message costs its record on disk and ~100–200 bytes of memory (the queue's
 * index, the lanes' key; typed arrays and a map that double as they fill): 50,000 waiting take
 * ~10 MB. Measured through `change-bridge start` (docs/benchmarks.md): a 100,000-record
 * backfill peaks at ~260 MB with this bound or with 100,000; a 300,000-record one, whose
 * backlog sits at the bound for minutes, at 262 MB with 5,000 and 280 MB with 100,000.
 */
export const DEFAULT_MAX_BACKLOG = 50_000;

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
