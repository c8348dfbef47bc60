import type { BackfillJobView } from '../../admin/backfill-view.ts';

/** What `backfill` does after a sample of a job read to its end. */
export type DeliveryVerdict =
  /** Every webhook of its events is delivered or dead-lettered. */
  | 'delivered'
  /** Webhooks are left and moved within the wait limit: read the job again. */
  | 'wait'
  /** Webhooks are left and their count has not gone below its lowest for the wait limit. */
  | 'stalled';

/** The job's webhooks still to settle: deliveries left and events not yet handed to the subscriptions. Pure. */
export function webhooksPending(job: BackfillJobView): number {
  return job.webhooksLeft + job.eventsQueued;
}

/**
 * A function of each sample of a job read to its end (`done`), at `now` (epoch ms), saying
 * whether its webhooks are all delivered or dead-lettered (`deliveryDone`), still moving, or
 * stalled: for `limitMs`, neither its pending webhooks ({@link webhooksPending}) nor its events
 * queued went below the lowest count seen yet (the receiver is down and its deliveries wait for
 * retries, or the dispatcher is stopped). Live changes of the streams add webhooks all along,
 * delivered to a healthy receiver or waiting with the rest: they are no movement, or the wait
 * would last as long as the activity (hours of retries). Pure but for what it keeps of the
 * samples before.
 * @example const verdict = deliveryWaiter(60_000); verdict(job, Date.now()) // 'wait'
 */
export function deliveryWaiter(
  limitMs: number,
): (job: BackfillJobView, now: number) => DeliveryVerdict {
  let lowest: { pending: number; queued: number; at: number } | undefined;
  return (job, now) => {
    if (job.deliveryDone) return 'delivered';
    const pending = webhooksPending(job);
    // Events handed to several subscriptions add webhooks as they leave the queue: the queue
    // going down is movement too.
    if (lowest === undefined || pending < lowest.pending || job.eventsQueued < lowest.queued) {
      lowest = {
        pending: Math.min(pending, lowest?.pending ?? pending),
        queued: Math.min(job.eventsQueued, lowest?.queued ?? job.eventsQueued),
        at: now,
      };
    }
    return now - lowest.at >= limitMs ? 'stalled' : 'wait';
  };
}

/**
 * A function of each sample at `now` (epoch ms) giving the seconds its pending webhooks
 * ({@link webhooksPending}) take at the pace that count went down over the samples of the last
 * `windowMs`; null until two samples show it going down. The pace is the count's own, not the
 * pace webhooks settle: live changes of the streams delivered to a healthy receiver settle as
 * fast as they come and leave the count as it was, so they would make a backlog waiting for a
 * slow receiver look about to end. Pure but for the samples it keeps.
 * @example const eta = deliveryPace(); eta(job, Date.now()) // 12
 */
export function deliveryPace(
  windowMs = 30_000,
): (job: BackfillJobView, now: number) => number | null {
  const samples: { at: number; pending: number }[] = [];
  return (job, now) => {
    const pending = webhooksPending(job);
    samples.push({ at: now, pending });
    while (samples.length > 2 && now - samples[0]!.at > windowMs) samples.shift();
    const first = samples[0]!;
    const rate = now > first.at ? (first.pending - pending) / ((now - first.at) / 1000) : 0;
    if (pending === 0) return 0;
    return rate > 0 ? Math.ceil(pending / rate) : null;
  };
}
