/** What the backfills view says of a job (`GET /backfill/{id}`), and the jobs it remembers: pure. */

import { duration } from './dom.js';

const COUNT = new Intl.NumberFormat('en-US');

/**
 * Where a job stands: reading (with the time left once known), read with webhooks still to
 * deliver, or done. Pure.
 * @param {{ done: boolean, deliveryDone: boolean, etaSeconds?: number | null, webhooksLeft?: number, eventsQueued?: number }} job
 * @example backfillStanding({ done: true, deliveryDone: true }) // 'done'
 */
export function backfillStanding(job) {
  if (!job.done)
    return job.etaSeconds === null || job.etaSeconds === undefined
      ? 'reading'
      : `reading, about ${duration(job.etaSeconds)} left`;
  if (job.deliveryDone) return 'done';
  const queued = job.eventsQueued ? `, ${COUNT.format(job.eventsQueued)} events queued` : '';
  return `read done, ${COUNT.format(job.webhooksLeft ?? 0)} webhooks left to deliver${queued}`;
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
