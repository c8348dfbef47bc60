/** What the backfills view says of a job (`GET /backfill/{id}`), and the jobs it remembers: pure. */

import { duration } from './dom.js';

const COUNT = new Intl.NumberFormat('en-US');

/**
 * Where a job stands: reading (with the time left until its webhooks are delivered once
 * known: `etaSeconds` counts them), read with webhooks still to deliver (and their time once
 * known), or done. Pure.
 * @param {{ done: boolean, deliveryDone: boolean, etaSeconds?: number | null, webhooksLeft?: number, eventsQueued?: number }} job
 * @example backfillStanding({ done: true, deliveryDone: true }) // 'done'
 */
export function backfillStanding(job) {
  const known = job.etaSeconds !== null && job.etaSeconds !== undefined;
  const left = known ? `, about ${duration(/** @type {number} */ (job.etaSeconds))} left` : '';
  if (!job.done) return known ? `reading${left}` : 'reading, estimating the time left';
  if (job.deliveryDone) return 'done';
  const queued = job.eventsQueued ? `, ${COUNT.format(job.eventsQueued)} events queued` : '';
  return `read done, ${COUNT.format(job.webhooksLeft ?? 0)} webhooks left to deliver${queued}${left}`;
}

/**
 * The share of a job's work done as its bar says it: a whole percent of `fraction` (records
 * read and webhooks delivered), or null while the records to read are unknown (`readFraction`
 * null: the bar waits, rather than show a share of the history's empty years). Pure.
 * @param {{ fraction: number, done: boolean, readFraction?: number | null }} job
 * @example backfillPercent({ fraction: 0.415, done: false, readFraction: 0.5 }) // 41
 */
export function backfillPercent(job) {
  if (!job.done && job.readFraction === null) return null;
  return Math.floor(job.fraction * 100);
}

/** The states a job's streams are counted in, in the order the line names them. */
const STREAM_STATES = /** @type {const} */ ([
  ['reading', 'reading'],
  ['parked', 'parked'],
  ['ended', 'ended early'],
  ['caughtUp', 'caught up'],
]);

/**
 * How many of a job's streams stand where (`streamCounts`), naming only the states some are in;
 * '—' from a bridge that does not answer it. Pure.
 * @param {{ total: number, reading: number, parked: number, ended: number, caughtUp: number } | undefined} counts
 * @example streamCountsLine({ total: 2, reading: 1, parked: 0, ended: 0, caughtUp: 1 }) // '2 streams: 1 reading, 1 caught up'
 */
export function streamCountsLine(counts) {
  if (!counts) return '—';
  const states = STREAM_STATES.filter(([key]) => counts[key] > 0)
    .map(([key, name]) => `${COUNT.format(counts[key])} ${name}`)
    .join(', ');
  return `${COUNT.format(counts.total)} ${counts.total === 1 ? 'stream' : 'streams'}: ${states}`;
}
