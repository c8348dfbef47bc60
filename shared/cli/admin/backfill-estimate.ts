import type { BackfillJobView } from './backfill-progress.ts';

/**
 * How far a backfill job really is and how long it has left, from the samples `backfill` reads:
 * its reading (records read against the records the connector will still return) and its
 * delivering (webhooks of its events not delivered yet, at the recent delivery rate). Pure but
 * for the samples each estimator keeps.
 *
 * A stream's `fraction` is the share of its history's time range its windows covered, and
 * records do not come evenly over that range: the years before the first record read go by in
 * a few empty windows (80 % of the range, no record read), then a window of months stands still
 * while tens of thousands are paged. So the reading is measured in records: the records a
 * stretch of the range held, between two window ends seen with records read (its density),
 * gives the records the rest of the range will hold, and the time left is those at the recent
 * records per second. Until a window ended with records read and another after it there is no
 * density: the fraction and the time are unknown (null), not guessed.
 */

/** The figures of one part of the job a sample tells: a stream, or the job's totals. */
export interface PartSample {
  /** Share of the history's time range read, 0 to 1 (the view's `fraction`). */
  fraction: number;
  recordsRead: number;
  done: boolean;
  parked: boolean;
}

/** Where one part's reading stands. */
export interface ReadEstimate {
  /** Records read against the records expected, 0 to 1; null while unknown. */
  fraction: number | null;
  /** Seconds the reading has left at the recent records per second; null while unknown. */
  secondsLeft: number | null;
}

/** How far back the rates are measured, in ms: the recent pace, not the whole run's. */
export const ESTIMATE_RATE_WINDOW_MS = 30_000;
/** The least span of samples a rate is measured over, in ms: one interval is too jumpy. */
export const ESTIMATE_RATE_MIN_SPAN_MS = 2_000;
/** The highest fraction a part still reading shows: it is not done until it says so. */
const READING_FRACTION_MAX = 0.99;

/** Whole seconds, rounded up, of a count at a rate per second (a float's last digit not rounded up). */
function secondsFor(count: number, perSecond: number): number {
  return Math.ceil(count / perSecond - 1e-9);
}

interface Point {
  fraction: number;
  records: number;
}

/** A count's samples of the last {@link ESTIMATE_RATE_WINDOW_MS}, and its rate per second. */
function rateTracker(): (at: number, value: number) => number | null {
  const samples: { at: number; value: number }[] = [];
  return (at, value) => {
    samples.push({ at, value });
    while (samples.length > 2 && at - samples[0]!.at > ESTIMATE_RATE_WINDOW_MS) samples.shift();
    const first = samples[0]!;
    if (at - first.at < ESTIMATE_RATE_MIN_SPAN_MS) return null;
    return (value - first.value) / ((at - first.at) / 1000);
  };
}

/**
 * A function of each sample of one part at `at` (epoch ms) giving its reading's fraction and
 * time left (see the file's comment): the records density is taken from the first sample whose
 * range moved with records read to the last; the time left from the records per second over the
 * last {@link ESTIMATE_RATE_WINDOW_MS}. 1 and 0 once done; a parked part has no time left to
 * tell (it waits for an operator).
 * @example const read = readEstimator(); read(at, { fraction: 0.8, recordsRead: 0, done: false, parked: false }) // { fraction: null, secondsLeft: null }
 */
export function readEstimator(): (at: number, part: PartSample) => ReadEstimate {
  let start: Point | undefined;
  let last: Point | undefined;
  let before: Point | undefined;
  const rateOf = rateTracker();
  return (at, part) => {
    const point = { fraction: part.fraction, records: part.recordsRead };
    const rate = rateOf(at, part.recordsRead);
    // A window ended since the sample before: the records read so far are about those up to
    // its end (with at most an interval's pages of the next). Only such points with records
    // read measure a density: from where no record was read, the empty years before the first
    // record would be averaged in (the last empty windows and the first page of records can
    // come in one interval).
    if (before !== undefined && point.fraction > before.fraction && point.records > 0) {
      start ??= point;
      last = point;
    }
    before = point;
    if (part.done) return { fraction: 1, secondsLeft: 0 };
    if (start === undefined || last === undefined || !(last.fraction > start.fraction)) {
      return { fraction: null, secondsLeft: null };
    }
    const density = (last.records - start.records) / (last.fraction - start.fraction);
    const expected = last.records + density * (1 - last.fraction);
    const left = expected - part.recordsRead;
    const fraction = Math.min(READING_FRACTION_MAX, expected > 0 ? part.recordsRead / expected : 0);
    // More read than the density foretold (a denser window): the time is unknown until the
    // next window completes and the density is measured again.
    if (part.parked || !(left > 0) || rate === null || !(rate > 0)) {
      return { fraction, secondsLeft: null };
    }
    return { fraction, secondsLeft: secondsFor(left, rate) };
  };
}

/** The job's figures a sample tells about its deliveries. */
export interface DeliverySample {
  eventsPublished: number;
  webhooksDelivered: number;
  webhooksDeadLettered: number;
  /** Deliveries made, not delivered or dead-lettered yet. */
  webhooksLeft: number;
  /** Events published that the dispatcher has not handed to the subscriptions yet. */
  eventsQueued: number;
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
  /** Each part's reading fraction, in the order given; null while unknown. */
  partFractions: (number | null)[];
}

/**
 * A function of each sample of a job giving what it has left ({@link JobEstimate}): `parts` are
 * its streams (or its totals, when the answer lists none), each estimated by its own
 * {@link readEstimator} (the reading's fraction is their mean, its time the longest of the
 * running ones'); the delivering is the webhooks pending (`webhooksLeft + eventsQueued`) and the
 * events the rest of the reading will publish (at the recent events per second), at the recent
 * rate webhooks are delivered or dead-lettered. `readDone` says the job's reading ended; the
 * delivery time then comes from `afterRead` once known (the pace the pending count goes down,
 * see deliveryPace: live changes delivered meanwhile do not shorten it), the delivery rate till
 * then.
 * @example const estimate = jobEstimator(); estimate(at, parts, job, false) // { secondsLeft: null, … }
 */
export function jobEstimator(): (
  at: number,
  parts: readonly (PartSample & { key: string })[],
  figures: DeliverySample,
  readDone: boolean,
  afterRead?: number | null,
) => JobEstimate {
  const readers = new Map<string, ReturnType<typeof readEstimator>>();
  const deliveredRateOf = rateTracker();
  const publishedRateOf = rateTracker();
  return (at, parts, figures, readDone, afterRead) => {
    const reads = parts.map((part) => {
      const reader = readers.get(part.key) ?? readEstimator();
      readers.set(part.key, reader);
      return { part, read: reader(at, part) };
    });
    const settled = figures.webhooksDelivered + figures.webhooksDeadLettered;
    const deliveredRate = deliveredRateOf(at, settled);
    const publishedRate = publishedRateOf(at, figures.eventsPublished);
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
    const pending = figures.webhooksLeft + figures.eventsQueued;
    const toCome =
      readDone || readSecondsLeft === null ? 0 : Math.max(0, publishedRate ?? 0) * readSecondsLeft;
    let deliverySecondsLeft: number | null;
    if (readDone && afterRead != null) deliverySecondsLeft = afterRead;
    else if (pending + toCome === 0)
      deliverySecondsLeft = readDone || publishedRate === 0 ? 0 : null;
    else if (
      deliveredRate === null ||
      !(deliveredRate > 0) ||
      (!readDone && readSecondsLeft === null)
    )
      deliverySecondsLeft = null;
    else deliverySecondsLeft = secondsFor(pending + toCome, deliveredRate);
    const secondsLeft =
      readSecondsLeft === null || deliverySecondsLeft === null
        ? null
        : Math.max(readSecondsLeft, deliverySecondsLeft);
    const all = settled + pending + toCome;
    const deliveredShare = all > 0 ? settled / all : 1;
    const fraction = readFraction === null ? null : Math.min(readFraction, deliveredShare);
    const partFractions = reads.map((r) => r.read.fraction);
    return {
      fraction,
      readFraction,
      readSecondsLeft,
      deliverySecondsLeft,
      secondsLeft,
      partFractions,
    };
  };
}

/** A job as the API reports it, with what `backfill` estimates it has left. */
export interface EstimatedJob {
  /**
   * The job as shown: its `fraction`, `etaSeconds` and each listed stream's `fraction` are the
   * estimate's (records read of those expected, 0 while unknown), not the time range's.
   */
  shown: BackfillJobView;
  estimate: JobEstimate;
}

/**
 * A function of each sample of a job at `at` (epoch ms) giving it with its estimate
 * ({@link jobEstimator}): over its listed streams, or its totals when it lists none.
 * `afterRead` is the delivery time once the reading ended (see deliveryPace).
 * @example const estimated = jobEstimates(); estimated(job, Date.now(), null).estimate.secondsLeft // null
 */
export function jobEstimates(): (
  job: BackfillJobView,
  at: number,
  afterRead: number | null,
) => EstimatedJob {
  const estimateOf = jobEstimator();
  const partOf = (s: Omit<PartSample, 'parked'> & { parked?: boolean }, key: string) => ({
    key,
    fraction: s.fraction,
    recordsRead: s.recordsRead,
    done: s.done,
    parked: s.parked ?? false,
  });
  return (job, at, afterRead) => {
    const parts =
      job.streams.length > 0
        ? job.streams.map((s) => partOf(s, s.streamId))
        : [partOf({ ...job, parked: (job.streamCounts?.reading ?? 1) === 0 }, '*')];
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
