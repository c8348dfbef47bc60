/** Types of backfill-figures.js (a browser module of the console, also tested under Node). */

/** Where a job stands: reading or read with webhooks left (with the time left once known), or done. */
export function backfillStanding(job: {
  done: boolean;
  deliveryDone: boolean;
  etaSeconds?: number | null;
  webhooksLeft?: number;
  eventsQueued?: number;
  webhooksToDeliver?: number;
}): string;

/** A whole percent of the job's work done, or null while its records to read are unknown. */
export function backfillPercent(job: {
  fraction: number;
  done: boolean;
  readFraction?: number | null;
}): number | null;

/** How many of a job's streams stand where, naming only the states some are in; '—' without counts. */
export function streamCountsLine(
  counts:
    | { total: number; reading: number; parked: number; ended: number; caughtUp: number }
    | undefined,
): string;
