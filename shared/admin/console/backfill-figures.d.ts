/** Types of backfill-figures.js (a browser module of the console, also tested under Node). */

/** Where a job stands: reading (with the time left once known), read with webhooks left, or done. */
export function backfillStanding(job: {
  done: boolean;
  deliveryDone: boolean;
  etaSeconds?: number | null;
  webhooksLeft?: number;
  eventsQueued?: number;
}): string;

/** How many of a job's streams stand where, naming only the states some are in; '—' without counts. */
export function streamCountsLine(
  counts:
    | { total: number; reading: number; parked: number; ended: number; caughtUp: number }
    | undefined,
): string;
