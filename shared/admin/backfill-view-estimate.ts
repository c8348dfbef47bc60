import type { DeliveryCounts } from '../webhooks/delivery-counter.ts';
import { shownRateAfterRead } from './backfill-delivery-estimate.ts';
import { streamPart, webhooksToDeliver } from './backfill-estimate.ts';
import type { BackfillEstimates } from './backfill-estimates.ts';
import type { BackfillJobView } from './backfill-view.ts';

/**
 * Deliveries made per event handed on, over `counts` (the job's streams'): null until an event
 * was handed on. Pure.
 * @example webhooksPerEvent([{ events: 10, created: 20, delivered: 5, dead: 0 }]) // 2
 */
export function webhooksPerEvent(counts: Iterable<DeliveryCounts>): number | null {
  let events = 0;
  let created = 0;
  for (const count of counts) {
    events += count.events;
    created += count.created;
  }
  return events > 0 ? created / events : null;
}

/**
 * The job's view with what it has left measured in records and webhooks (see BackfillEstimates):
 * `fraction` the work done (0 while unknown), `webhooksToDeliver` those made and those of the
 * events queued, `etaSeconds` until every webhook is delivered or dead-lettered (the larger of
 * the reading's and the delivering's), each stream's `fraction` its records read of those
 * expected; `view`'s own `fraction`s, the history time range's
 * shares, move to `rangeFraction`. `readAt` is when its sources were read.
 */
export function withEstimate(
  view: BackfillJobView,
  readAt: number,
  perEvent: number | null,
  estimates: BackfillEstimates,
): BackfillJobView {
  const parts = view.streams.map(streamPart);
  const estimate = estimates.estimate({
    jobId: view.id,
    startedAt: Date.parse(view.startedAt),
    readAt,
    parts,
    figures: { ...view, webhooksPerEvent: perEvent },
    readDone: view.done,
  });
  const delivered = view.deliveryDone;
  const rangeFraction = parts.length
    ? parts.reduce((sum, p) => sum + p.fraction, 0) / parts.length
    : 1;
  return {
    ...view,
    fraction: delivered ? 1 : (estimate.fraction ?? 0),
    rangeFraction,
    readFraction: estimate.readFraction,
    readEtaSeconds: estimate.readSecondsLeft,
    deliveryEtaSeconds: delivered ? 0 : estimate.deliverySecondsLeft,
    deliveryRateAfterRead: shownRateAfterRead(estimate.deliveryRateAfterRead),
    webhooksPerEvent: perEvent,
    webhooksToDeliver: Math.round(webhooksToDeliver({ ...view, webhooksPerEvent: perEvent })),
    etaSeconds: delivered ? 0 : estimate.secondsLeft,
    streams: view.streams.map((s, i) => ({
      ...s,
      fraction: s.done ? 1 : (estimate.partFractions[i] ?? 0),
      recordsExpected: estimate.partRecordsExpected[i] ?? null,
    })),
  };
}
