import type { BackfillJobView } from './backfill-progress.ts';

/** What `backfill` does after a sample of a job read to its end. */
export type DeliveryVerdict =
  /** Every webhook of its events is delivered or dead-lettered. */
  | 'delivered'
  /** Webhooks are left and moved within the wait limit: read the job again. */
  | 'wait'
  /** Webhooks are left and none was delivered or dead-lettered for the wait limit. */
  | 'stalled';

/** The job's webhooks still to settle: deliveries left and events not yet handed to the subscriptions. Pure. */
export function webhooksPending(job: BackfillJobView): number {
  return job.webhooksLeft + job.eventsQueued;
}

/**
 * A function of each sample of a job read to its end (`done`), at `now` (epoch ms), saying
 * whether its webhooks are all delivered or dead-lettered (`deliveryDone`), still moving, or
 * stalled: nothing delivered, dead-lettered or handed on for `limitMs` (the receiver is down
 * and its deliveries wait for retries, or the dispatcher is stopped). Pure but for what it
 * keeps of the samples before.
 * @example const verdict = deliveryWaiter(60_000); verdict(job, Date.now()) // 'wait'
 */
export function deliveryWaiter(
  limitMs: number,
): (job: BackfillJobView, now: number) => DeliveryVerdict {
  let last: { moved: string; at: number } | undefined;
  return (job, now) => {
    if (job.deliveryDone) return 'delivered';
    const moved = [
      job.webhooksDelivered,
      job.webhooksDeadLettered,
      job.webhooksLeft,
      job.eventsQueued,
    ].join(':');
    if (last === undefined || last.moved !== moved) last = { moved, at: now };
    return now - last.at >= limitMs ? 'stalled' : 'wait';
  };
}

/**
 * A function of each sample at `now` (epoch ms) giving the seconds its pending webhooks
 * ({@link webhooksPending}) take at the pace they settled (delivered or dead-lettered) over the
 * samples of the last `windowMs`; null until two samples show any settling. Pure but for the
 * samples it keeps.
 * @example const eta = deliveryPace(); eta(job, Date.now()) // 12
 */
export function deliveryPace(
  windowMs = 30_000,
): (job: BackfillJobView, now: number) => number | null {
  const samples: { at: number; settled: number }[] = [];
  return (job, now) => {
    const settled = job.webhooksDelivered + job.webhooksDeadLettered;
    samples.push({ at: now, settled });
    while (samples.length > 2 && now - samples[0]!.at > windowMs) samples.shift();
    const first = samples[0]!;
    const rate = now > first.at ? (settled - first.settled) / ((now - first.at) / 1000) : 0;
    const pending = webhooksPending(job);
    if (pending === 0) return 0;
    return rate > 0 ? Math.ceil(pending / rate) : null;
  };
}
