/** What the backfills view says of a job (`GET /backfill/{id}`), and the jobs it remembers: pure. */

import { duration } from './dom.js';

const COUNT = new Intl.NumberFormat('en-US');

/**
 * `count` of `noun`, its plural but for one: `1 webhook`, `38,819 webhooks`. Pure.
 * @param {number} count
 * @param {string} noun
 */
function countOf(count, noun) {
  return `${COUNT.format(count)} ${noun}${count === 1 ? '' : 's'}`;
}

/**
 * Where a job stands: reading (with the time left until its webhooks are delivered once
 * known: `etaSeconds` counts them), read with webhooks still to deliver (and their time once
 * known), or done. The webhooks left count those the events still queued will make
 * (`webhooksToDeliver`, an estimate while events are queued), as `backfill` says it. Pure.
 * @param {{ done: boolean, deliveryDone: boolean, etaSeconds?: number | null, webhooksLeft?: number, eventsQueued?: number, webhooksToDeliver?: number }} job
 * @example backfillStanding({ done: true, deliveryDone: true }) // 'done'
 * @example backfillStanding({ done: true, deliveryDone: false, webhooksLeft: 0, eventsQueued: 5, webhooksToDeliver: 10 }) // 'read done, about 10 webhooks left to deliver, counting those of 5 queued events'
 */
export function backfillStanding(job) {
  const known = job.etaSeconds !== null && job.etaSeconds !== undefined;
  const left = known ? `, about ${duration(/** @type {number} */ (job.etaSeconds))} left` : '';
  if (!job.done) return known ? `reading${left}` : 'reading, estimating the time left';
  if (job.deliveryDone) return 'done';
  const made = job.webhooksLeft ?? 0;
  if (!job.eventsQueued) return `read done, ${countOf(made, 'webhook')} left to deliver${left}`;
  // The bridge serving the console answers webhooksToDeliver; one each is the estimator's guess.
  const all = job.webhooksToDeliver ?? made + job.eventsQueued;
  const queued = countOf(job.eventsQueued, 'queued event');
  return `read done, about ${countOf(all, 'webhook')} left to deliver, counting those of ${queued}${left}`;
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
