/**
 * How far one part of a backfill (a stream, or a job's totals) has read, in records rather
 * than in the share of its history's time range: pure but for the samples each estimator keeps.
 *
 * A part's range share is the share of its history's time range its windows covered, and
 * records do not come evenly over that range: the years before the first record read go by in
 * a few empty windows (80 % of the range, no record read), then a window of months stands still
 * while tens of thousands are paged. So the reading is measured in records: the records a
 * stretch of the range held, between two window ends seen with records read (its density),
 * gives the records the rest of the range will hold, and the time left is those at the recent
 * records per second. Until a window ended with records read and another after it there is no
 * density: the records a pass's stream held at its first sync stand for the records it will
 * read where they are known, else the fraction and the time are unknown (null), not guessed.
 */

/** The figures of one part of the job a sample tells: a stream, or the job's totals. */
export interface PartSample {
  /** Share of the history's time range read, 0 to 1 (the view's `rangeFraction`). */
  fraction: number;
  recordsRead: number;
  done: boolean;
  parked: boolean;
  /**
   * Records the part is expected to read in all before a density is measured (a pass: the
   * records its stream's first sync read); absent or null when nothing tells.
   */
  recordsGuess?: number | null | undefined;
}

/** Where one part's reading stands. */
export interface ReadEstimate {
  /** Records read against the records expected, 0 to 1; null while unknown. */
  fraction: number | null;
  /** Seconds the reading has left at the recent records per second; null while unknown. */
  secondsLeft: number | null;
  /** Records the part is expected to read in all; null while unknown. */
  recordsExpected: number | null;
}

/** How far back the rates are measured, in ms: the recent pace, not the whole run's. */
export const ESTIMATE_RATE_WINDOW_MS = 30_000;
/** The least span of samples a rate is measured over, in ms: one interval is too jumpy. */
export const ESTIMATE_RATE_MIN_SPAN_MS = 2_000;
/** The highest fraction a part still reading shows: it is not done until it says so. */
const READING_FRACTION_MAX = 0.99;

/**
 * Whole seconds, rounded up, of a count at a rate per second (a float's last digit not rounded
 * up). Pure.
 * @example secondsFor(10, 4) // 3
 */
export function secondsFor(count: number, perSecond: number): number {
  return Math.ceil(count / perSecond - 1e-9);
}

/**
 * A count's samples of the last {@link ESTIMATE_RATE_WINDOW_MS}, and its rate per second (null
 * until the samples span {@link ESTIMATE_RATE_MIN_SPAN_MS}). `origin`, epoch ms, is a first
 * sample of 0 there: a count that started at 0 then (a job's, at its start) has a rate from its
 * first sample on, the mean since the origin until the window slides past it.
 * @example const rateOf = rateTracker(); rateOf(0, 0); rateOf(2_000, 10) // 5
 */
export function rateTracker(origin?: number): (at: number, value: number) => number | null {
  const samples: { at: number; value: number }[] =
    origin === undefined ? [] : [{ at: origin, value: 0 }];
  return (at, value) => {
    samples.push({ at, value });
    while (samples.length > 2 && at - samples[0]!.at > ESTIMATE_RATE_WINDOW_MS) samples.shift();
    const first = samples[0]!;
    if (at - first.at < ESTIMATE_RATE_MIN_SPAN_MS) return null;
    return (value - first.value) / ((at - first.at) / 1000);
  };
}

interface Point {
  fraction: number;
  records: number;
}

/**
 * A function of each sample of one part at `at` (epoch ms) giving its reading's fraction and
 * time left (see the file's comment): the records density is taken from the first sample whose
 * range moved with records read to the last; before there is one, the part's `recordsGuess`
 * while fewer than those are read; the time left from the records per second over the last
 * {@link ESTIMATE_RATE_WINDOW_MS} (from `origin`, epoch ms, with no record read then, when
 * given). 1 and 0 once done; a parked part has no time left to tell (it waits for an operator).
 * @example const read = readEstimator(); read(at, { fraction: 0.8, recordsRead: 0, done: false, parked: false }) // { fraction: null, secondsLeft: null, recordsExpected: null }
 */
export function readEstimator(origin?: number): (at: number, part: PartSample) => ReadEstimate {
  let start: Point | undefined;
  let last: Point | undefined;
  let before: Point | undefined;
  const rateOf = rateTracker(origin);
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
    if (part.done) return { fraction: 1, secondsLeft: 0, recordsExpected: part.recordsRead };
    const expected = expectedRecords(start, last, part);
    if (expected === null) return { fraction: null, secondsLeft: null, recordsExpected: null };
    const left = expected - part.recordsRead;
    const fraction = Math.min(READING_FRACTION_MAX, expected > 0 ? part.recordsRead / expected : 0);
    const recordsExpected = Math.round(expected);
    // More read than the density foretold (a denser window): the time is unknown until the
    // next window completes and the density is measured again.
    if (part.parked || !(left > 0) || rate === null || !(rate > 0)) {
      return { fraction, secondsLeft: null, recordsExpected };
    }
    return { fraction, secondsLeft: secondsFor(left, rate), recordsExpected };
  };
}

/**
 * The records a part is expected to read in all: those up to the last window end seen plus the
 * rest of the range at the density measured between the first and the last; its guess before
 * there is a density, or while the window being read holds more than the density foretold
 * (that density's figure when the guess is no more: the time left is then unknown); null
 * before either. Pure.
 */
function expectedRecords(
  start: Point | undefined,
  last: Point | undefined,
  part: PartSample,
): number | null {
  let measured: number | null = null;
  if (start !== undefined && last !== undefined && last.fraction > start.fraction) {
    const density = (last.records - start.records) / (last.fraction - start.fraction);
    measured = last.records + density * (1 - last.fraction);
    if (measured > part.recordsRead) return measured;
  }
  const guess = part.recordsGuess ?? 0;
  return guess > part.recordsRead ? guess : measured;
}
