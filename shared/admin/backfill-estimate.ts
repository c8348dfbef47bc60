import type { z } from 'zod';
import {
  deliveryRateAfterRead,
  twoPhaseSeconds,
  webhooksPerRecord,
} from './backfill-delivery-estimate.ts';
import {
  type PartSample,
  type ReadEstimate,
  rateTracker,
  readEstimator,
  secondsFor,
} from './backfill-read-estimate.ts';
import type { BackfillJobViewSchema } from './schemas.ts';

/**
 * How far a backfill job really is and how long it has left, from samples of its progress (the
 * ones `backfill` reads each second, the ones the admin API reads at each answer): its reading
 * in records (see backfill-read-estimate.ts) and its delivering (webhooks of its events not
 * delivered yet and of the events still to read, at the recent delivery rate). Pure but for the
 * samples each estimator keeps.
 */

type BackfillJobView = z.infer<typeof BackfillJobViewSchema>;

/** The job's figures a sample tells about its deliveries. */
export interface DeliverySample {
  eventsPublished: number;
  recordsRead: number;
  webhooksDelivered: number;
  webhooksDeadLettered: number;
  /** Deliveries made, not delivered or dead-lettered yet. */
  webhooksLeft: number;
  /** Events published that the dispatcher has not handed to the subscriptions yet. */
  eventsQueued: number;
  /**
   * Deliveries the dispatcher made per event it handed on (the subscriptions whose filters take
   * an event); absent or null until it handed one on: one each is assumed.
   */
  webhooksPerEvent?: number | null | undefined;
}

/**
 * Webhooks a job still has to deliver: the deliveries made and neither delivered nor
 * dead-lettered (`webhooksLeft`), and those the events queued make once the dispatcher hands
 * them on (`eventsQueued` times `webhooksPerEvent`, one each while that is unknown): an estimate
 * while events are queued. Pure.
 * @example webhooksToDeliver({ webhooksLeft: 10, eventsQueued: 5, webhooksPerEvent: 2 }) // 20
 */
export function webhooksToDeliver(
  figures: Pick<DeliverySample, 'webhooksLeft' | 'eventsQueued' | 'webhooksPerEvent'>,
): number {
  return figures.webhooksLeft + figures.eventsQueued * (figures.webhooksPerEvent ?? 1);
}

/** What a job has left, reading and delivering. */
export interface JobEstimate {
  /** The work done of all there is (the least of the reading's and the delivering's), 0 to 1; null while unknown. */
  fraction: number | null;
  /** The reading's fraction (records read of those expected); null while unknown. */
  readFraction: number | null;
  /** Seconds the reading has left; null while unknown. */
  readSecondsLeft: number | null;
  /** Seconds the webhooks left, and those of the events still to be read, take; null while unknown. */
  deliverySecondsLeft: number | null;
  /** The larger of the two; null while either is unknown ("estimating"). */
  secondsLeft: number | null;
  /**
   * Webhooks per second the delivering is expected to reach once the reading ends (see
   * {@link deliveryRateAfterRead}), the rate the webhooks left then are counted at; null while
   * unknown or once read.
   */
  deliveryRateAfterRead: number | null;
  /** Each part's reading fraction, in the order given; null while unknown. */
  partFractions: (number | null)[];
  /** Each part's records expected in all, in the order given; null while unknown. */
  partRecordsExpected: (number | null)[];
}

/** Options of an estimator. */
export interface EstimatorOptions {
  /**
   * Epoch ms the job started, when its counts were all 0: the rates are measured from there
   * until samples of their own span the rate window (a reader that samples seldom, or starts
   * late: an answer of the admin API). Absent: from the first sample.
   */
  origin?: number;
}

/** One part of a job as {@link jobEstimator} takes it: its sample and a key naming it. */
export type KeyedPart = PartSample & { key: string };

/**
 * One stream of a job's answer as the part {@link jobEstimator} takes: keyed by its stream id,
 * its time-range share where the answer moved it to `rangeFraction`, its first sync's count as
 * the guess of its records. Pure.
 */
export function streamPart(stream: BackfillJobView['streams'][number]): KeyedPart {
  return {
    key: stream.streamId,
    fraction: stream.rangeFraction ?? stream.fraction,
    recordsRead: stream.recordsRead,
    done: stream.done,
    parked: stream.parked,
    recordsGuess: stream.recordsAtFirstSync,
  };
}

/**
 * A function of each sample of a job giving what it has left ({@link JobEstimate}): `parts` are
 * its streams (or its totals, when the answer lists none), each estimated by its own
 * readEstimator (the reading's fraction is their mean, its time the longest of the running
 * ones'); the delivering is the webhooks pending (`webhooksLeft`, and `eventsQueued` times the
 * webhooks per event) and those of the events the rest of the records will publish (at the
 * events published per record read so far), at the recent rate webhooks are delivered or
 * dead-lettered. `readDone` says the job's reading ended; the delivery time then comes from
 * `afterRead` once known (the pace the pending count goes down, see deliveryPace: live changes
 * delivered meanwhile do not shorten it), till then from the delivery rate seen since the
 * reading ended (the recent rate for its first 2 s, while that is not measured).
 * @example const estimate = jobEstimator(); estimate(at, parts, job, false) // { secondsLeft: null, … }
 */
export function jobEstimator(
  options: EstimatorOptions = {},
): (
  at: number,
  parts: readonly KeyedPart[],
  figures: DeliverySample,
  readDone: boolean,
  afterRead?: number | null,
) => JobEstimate {
  const readers = new Map<string, ReturnType<typeof readEstimator>>();
  const deliveredRateOf = rateTracker(options.origin);
  const recordsRateOf = rateTracker(options.origin);
  /** The delivery rate from the first sample after the reading ended (see below). */
  let afterReadRateOf: ReturnType<typeof rateTracker> | undefined;
  return (at, parts, figures, readDone, afterRead) => {
    const reads = parts.map((part) => {
      const reader = readers.get(part.key) ?? readEstimator(options.origin);
      readers.set(part.key, reader);
      return { part, read: reader(at, part) };
    });
    const settled = figures.webhooksDelivered + figures.webhooksDeadLettered;
    const deliveredRate = deliveredRateOf(at, settled);
    // Once the reading ended, the webhooks left go at the rate seen since: `change-bridge
    // start`'s bulk lane waits while the reading has pages in hand (see BulkPageWork), so the
    // rate seen while it read says little of the rate after.
    if (readDone) afterReadRateOf ??= rateTracker();
    const rateSinceRead = afterReadRateOf?.(at, settled) ?? null;
    const recordsRate = recordsRateOf(at, figures.recordsRead);
    const readFraction = readDone
      ? 1
      : reads.some((r) => r.read.fraction === null)
        ? null
        : reads.reduce((sum, r) => sum + (r.read.fraction ?? 0), 0) / Math.max(1, reads.length);
    const running = reads.filter((r) => !r.part.done && !r.part.parked);
    const readSecondsLeft = readDone
      ? 0
      : running.length === 0 || running.some((r) => r.read.secondsLeft === null)
        ? null
        : Math.max(...running.map((r) => r.read.secondsLeft ?? 0));
    const perEvent = figures.webhooksPerEvent ?? 1;
    const pending = webhooksToDeliver(figures);
    const toCome = readDone ? 0 : webhooksToCome(reads, figures, perEvent);
    const rateAfterRead =
      readDone || deliveredRate === null || recordsRate === null
        ? null
        : deliveryRateAfterRead(deliveredRate, recordsRate * webhooksPerRecord(figures, perEvent));
    let deliverySecondsLeft: number | null;
    if (readDone && afterRead != null) deliverySecondsLeft = afterRead;
    else if (toCome === null) deliverySecondsLeft = null;
    else if (pending + toCome === 0) deliverySecondsLeft = 0;
    else if (readDone && rateSinceRead !== null)
      deliverySecondsLeft = rateSinceRead > 0 ? secondsFor(pending, rateSinceRead) : null;
    else if (deliveredRate === null || !(deliveredRate > 0)) deliverySecondsLeft = null;
    else if (readSecondsLeft === null || rateAfterRead === null) {
      deliverySecondsLeft = secondsFor(pending + toCome, deliveredRate);
    } else {
      deliverySecondsLeft = twoPhaseSeconds(
        pending + toCome,
        readSecondsLeft,
        deliveredRate,
        rateAfterRead,
      );
    }
    const secondsLeft =
      readSecondsLeft === null || deliverySecondsLeft === null
        ? null
        : Math.max(readSecondsLeft, deliverySecondsLeft);
    const all = settled + pending + (toCome ?? 0);
    const deliveredShare = all > 0 ? settled / all : 1;
    const fraction = readFraction === null ? null : Math.min(readFraction, deliveredShare);
    return {
      fraction,
      readFraction,
      readSecondsLeft,
      deliverySecondsLeft,
      secondsLeft,
      deliveryRateAfterRead: rateAfterRead,
      partFractions: reads.map((r) => r.read.fraction),
      partRecordsExpected: reads.map((r) => r.read.recordsExpected),
    };
  };
}

/**
 * Webhooks the records the parts have left to read will make: those records, at the events
 * published per record read so far, times the webhooks per event; null while a part still
 * reading has no records expected, or records are left and none was read yet. Pure.
 */
function webhooksToCome(
  reads: readonly { part: PartSample; read: ReadEstimate }[],
  figures: Pick<DeliverySample, 'eventsPublished' | 'recordsRead'>,
  perEvent: number,
): number | null {
  let recordsLeft = 0;
  for (const { part, read } of reads) {
    if (part.done) continue;
    if (read.recordsExpected === null) return null;
    recordsLeft += Math.max(0, read.recordsExpected - part.recordsRead);
  }
  if (recordsLeft === 0) return 0;
  // Before a record is read, how many events the records make is unknown (every one with
  // `--emit`, the changed ones without).
  if (figures.recordsRead === 0) return null;
  return recordsLeft * (figures.eventsPublished / figures.recordsRead) * perEvent;
}

/** A job as the API reports it, with what its estimate says it has left. */
export interface EstimatedJob {
  /**
   * The job as shown: its `fraction`, `etaSeconds` and each listed stream's `fraction` are the
   * estimate's (records read of those expected, 0 while unknown), not the time range's.
   */
  shown: BackfillJobView;
  estimate: JobEstimate;
}

/**
 * The estimate a bridge answered for a job (`readFraction`, `readEtaSeconds`,
 * `deliveryEtaSeconds`), measured over each of its streams: an answer that lists none (a job of
 * thousands) leaves only totals, whose records density mixes streams of every range. Once the
 * reading ended, `afterRead` (the pace the pending count goes down) tells the delivery time
 * when known, as for an estimate of the caller's own. Pure.
 */
function bridgeEstimate(job: BackfillJobView, afterRead: number | null): JobEstimate {
  const readFraction = job.done ? 1 : (job.readFraction ?? null);
  const readSecondsLeft = job.done ? 0 : (job.readEtaSeconds ?? null);
  const deliverySecondsLeft =
    job.done && afterRead !== null ? afterRead : (job.deliveryEtaSeconds ?? null);
  const secondsLeft =
    readSecondsLeft === null || deliverySecondsLeft === null
      ? null
      : Math.max(readSecondsLeft, deliverySecondsLeft);
  return {
    fraction: readFraction === null ? null : job.fraction,
    readFraction,
    readSecondsLeft,
    deliverySecondsLeft,
    secondsLeft,
    deliveryRateAfterRead: job.deliveryRateAfterRead ?? null,
    partFractions: [],
    partRecordsExpected: [],
  };
}

/**
 * A function of each sample of a job at `at` (epoch ms) giving it with its estimate
 * ({@link jobEstimator}): over its listed streams (each one's range share `rangeFraction`, or
 * `fraction` from a bridge that does not answer it, and its `recordsAtFirstSync` as its guess),
 * or when it lists none the bridge's own estimate where it answers one (measured over every
 * stream), else its totals'. `afterRead` is the delivery time once the reading ended (see
 * deliveryPace).
 * @example const estimated = jobEstimates(); estimated(job, Date.now(), null).estimate.secondsLeft // null
 */
export function jobEstimates(
  options: EstimatorOptions = {},
): (job: BackfillJobView, at: number, afterRead: number | null) => EstimatedJob {
  const estimateOf = jobEstimator(options);
  return (job, at, afterRead) => {
    if (job.streams.length === 0 && job.readFraction !== undefined) {
      return { shown: job, estimate: bridgeEstimate(job, afterRead) };
    }
    const parts: KeyedPart[] =
      job.streams.length > 0
        ? job.streams.map(streamPart)
        : [
            {
              key: '*',
              fraction: job.rangeFraction ?? job.fraction,
              recordsRead: job.recordsRead,
              done: job.done,
              parked: (job.streamCounts?.reading ?? 1) === 0,
            },
          ];
    const estimate = estimateOf(at, parts, job, job.done, job.done ? afterRead : undefined);
    const shown: BackfillJobView = {
      ...job,
      fraction: estimate.fraction ?? 0,
      etaSeconds: estimate.secondsLeft,
      streams: job.streams.map((s, i) => ({
        ...s,
        fraction: estimate.partFractions[i] ?? 0,
      })),
    };
    return { shown, estimate };
  };
}
