/** Types of backfill-figures.js (a browser module of the console, also tested under Node). */

/** The most job ids the page remembers. */
export const REMEMBERED_JOBS_MAX: number;

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

/** The job ids to remember once `id` is known: it first, then the others, each once, at most 20. */
export function rememberedJobIds(remembered: string[], id: string): string[];
