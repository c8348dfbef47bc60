import { secondsFor } from './backfill-read-estimate.ts';

/**
 * The delivering's part of a backfill job's time left while its reading runs (see
 * backfill-estimate.ts): the webhooks delivered while the reading goes on at the rate seen,
 * and those left when it ends at the rate the deliveries are expected to reach then. Pure.
 */

/**
 * Webhooks per second the delivering is expected to reach once the reading ends, from the rates
 * seen while it runs: `deliveredRate` (webhooks delivered or dead-lettered per second) and
 * `madeRate` (webhooks the reading makes per second: records read per second times
 * {@link webhooksPerRecord}). Where the reading and the deliveries share a process (`npm
 * start`), an unpaced reading takes most of it and the deliveries run at a fraction of their
 * later pace; once nothing reads they take what the reading took. They then reach at least
 * `deliveredRate` (the reading only takes from them) and at most `madeRate` (a webhook costs at
 * least what the record that makes it does), when that is the higher: a reading that makes
 * webhooks no faster than they are delivered waits on them (the dispatch backlog paces it) and
 * the bounds meet at the rate seen. The rate between the bounds that is off by the least factor
 * whichever is true is their geometric mean: off by at most `√(madeRate / deliveredRate)`. Pure.
 * @example deliveryRateAfterRead(100, 900) // 300
 */
export function deliveryRateAfterRead(deliveredRate: number, madeRate: number): number {
  const delivered = Math.max(0, deliveredRate);
  return Math.sqrt(delivered * Math.max(delivered, madeRate));
}

/**
 * {@link deliveryRateAfterRead} as the API and the CLI's `--json` lines show it: to a tenth of a
 * webhook per second; null stays null. Pure.
 * @example shownRateAfterRead(299.96) // 300
 */
export function shownRateAfterRead(rate: number | null): number | null {
  return rate === null ? null : Math.round(rate * 10) / 10;
}

/**
 * Webhooks each record read made so far (events per record times webhooks per event); 0 before
 * one was read. Pure.
 * @example webhooksPerRecord({ eventsPublished: 50, recordsRead: 100 }, 2) // 1
 */
export function webhooksPerRecord(
  figures: { eventsPublished: number; recordsRead: number },
  perEvent: number,
): number {
  return figures.recordsRead > 0 ? (figures.eventsPublished / figures.recordsRead) * perEvent : 0;
}

/**
 * Seconds until `webhooks` (those pending and those the reading left will make) are delivered,
 * in two phases: for the `readSeconds` the reading has left at `deliveredRate`, then what is
 * left at `rateAfterRead`; at `deliveredRate` alone when they are all delivered while reading.
 * Pure.
 * @example twoPhaseSeconds(10_000, 10, 100, 300) // 40
 */
export function twoPhaseSeconds(
  webhooks: number,
  readSeconds: number,
  deliveredRate: number,
  rateAfterRead: number,
): number {
  const whileReading = deliveredRate * readSeconds;
  if (webhooks <= whileReading || !(rateAfterRead > 0)) return secondsFor(webhooks, deliveredRate);
  return readSeconds + secondsFor(webhooks - whileReading, rateAfterRead);
}
