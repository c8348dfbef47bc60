import { shownRateAfterRead } from '../../admin/backfill-delivery-estimate.ts';
import {
  type JobEstimate,
  jobEstimates,
  webhooksToDeliver,
} from '../../admin/backfill-estimate.ts';
import {
  type BackfillStreamCounts,
  countBackfillStreams,
} from '../../admin/backfill-streams-listed.ts';
import type { BackfillJobView } from '../../admin/backfill-view.ts';
import {
  countOf,
  formatCount,
  formatDuration,
  type Palette,
  progressBar,
} from '../../local/terminal.ts';
import { deliveryPace } from './delivery-wait.ts';

/** How progress is shown: bars redrawn in place, plain lines at steps, or NDJSON. */
export type ProgressMode = 'tty' | 'plain' | 'json';

/**
 * The most streams `backfill` shows a line each for: a job of more is followed by its totals
 * alone (`GET /backfill/{id}?streams=0`), its figures and how many streams stand where.
 */
export const STREAM_LINES_MAX = 40;

const BAR_WIDTH = 30;
/** Plain output prints a stream again when it moved by this much. */
const PLAIN_STEP = 0.1;
/** Plain output prints the figures at least this often while anything runs, in seconds. */
const PLAIN_SUMMARY_EVERY_S = 10;

/**
 * What the job did and what is left, in one line. Once every stream is read but webhooks are
 * still on their way, it says so (`read done, N webhooks left to deliver`, N counting the
 * webhooks of the events the dispatcher has not handed on yet: {@link pendingText}) and the time they take at the pace their count goes down
 * (`deliveryEtaSeconds`, see deliveryPace); `done` only once they are all delivered or
 * dead-lettered.
 * @example progressSummary(job) // 'read 41,200 records · published 41,200 events · delivered 39,870 webhooks · ~12 s left'
 */
export function progressSummary(
  job: BackfillJobView,
  deliveryEtaSeconds: number | null = null,
): string {
  const timeLeft = (seconds: number | null) =>
    seconds === null ? 'estimating time left' : `~${formatDuration(seconds)} left`;
  const dead =
    job.webhooksDeadLettered > 0 ? ` (${formatCount(job.webhooksDeadLettered)} dead-lettered)` : '';
  const figures = [
    `read ${countOf(job.recordsRead, 'record')}`,
    `published ${countOf(job.eventsPublished, 'event')}`,
    `delivered ${countOf(job.webhooksDelivered, 'webhook')}${dead}`,
  ];
  if (!job.done) return [...figures, timeLeft(job.etaSeconds)].join(' · ');
  if (job.deliveryDone)
    return [...figures, `done in ${formatDuration(job.elapsedSeconds)}`].join(' · ');
  return [...figures, `read done, ${pendingText(job)}`, timeLeft(deliveryEtaSeconds)].join(' · ');
}

/** Where the job's streams stand: from the bridge, or counted from its streams (a bridge before it). Pure. */
export function streamCountsOf(job: BackfillJobView): BackfillStreamCounts {
  return job.streamCounts ?? countBackfillStreams(job.streams);
}

/**
 * How many streams stand where, for a job whose answer left streams out. Pure.
 * @example streamCountsText(job) // '6,500 streams: 5,190 reading, 10 parked, 1,300 caught up'
 */
export function streamCountsText(job: BackfillJobView): string {
  const counts = streamCountsOf(job);
  const parts = [
    [counts.reading, 'reading'],
    [counts.parked, 'parked'],
    [counts.ended, 'ended without completing'],
    [counts.caughtUp, 'caught up'],
  ] as const;
  const told = parts
    .filter(([count]) => count > 0)
    .map(([count, what]) => `${formatCount(count)} ${what}`);
  const streams = countOf(counts.total, 'stream');
  return told.length > 0 ? `${streams}: ${told.join(', ')}` : streams;
}

/**
 * The webhooks a job read to its end still waits for, in words: the deliveries made, and those
 * the events still queued make once handed on (the bridge's `webhooksToDeliver`, else counted as
 * it counts them: {@link webhooksToDeliver}), an estimate while events are queued. Pure.
 * @example pendingText(job) // '1,330 webhooks left to deliver'
 * @example pendingText(queued) // 'about 1,730 webhooks left to deliver, counting those of 200 queued events'
 */
export function pendingText(job: BackfillJobView): string {
  if (job.eventsQueued === 0) return `${countOf(job.webhooksLeft, 'webhook')} left to deliver`;
  const webhooks = countOf(job.webhooksToDeliver ?? Math.round(webhooksToDeliver(job)), 'webhook');
  const events = countOf(job.eventsQueued, 'queued event');
  return `about ${webhooks} left to deliver, counting those of ${events}`;
}

type StreamView = BackfillJobView['streams'][number];

/**
 * Whether a stream's part stands still with its last poll failed (`lastError`): the poller
 * backs off and tries again. The error stays until the poll that succeeds ends, which for a
 * pass or a first sync is when it has read everything, so a stream `moving` (reading again
 * since the last sample) is not failing.
 */
function failing(stream: StreamView, moving: ReadonlySet<string>): boolean {
  return (
    !stream.done &&
    !stream.parked &&
    stream.endedBy === null &&
    stream.lastError !== null &&
    !moving.has(stream.streamId)
  );
}

/**
 * A function of each sample giving the streams that moved (read records, or further in their
 * history) since the sample before.
 */
function movingTracker(): (job: BackfillJobView) => ReadonlySet<string> {
  const before = new Map<string, { fraction: number; recordsRead: number }>();
  return (job) => {
    const moving = new Set<string>();
    for (const s of job.streams) {
      const last = before.get(s.streamId);
      if (last && (s.fraction > last.fraction || s.recordsRead > last.recordsRead)) {
        moving.add(s.streamId);
      }
      before.set(s.streamId, { fraction: s.fraction, recordsRead: s.recordsRead });
    }
    return moving;
  };
}

/**
 * The TTY drawing: how many streams stand where when the answer left streams out, a bar per
 * stream listed (green when done, red when parked or ended without completing: superseded,
 * removed; yellow with its error while it stands still with its polls failing and retried),
 * the total, the figures.
 */
export function progressLines(
  job: BackfillJobView,
  palette: Palette,
  /** Streams that moved since the sample before (see {@link failing}). */
  moving: ReadonlySet<string> = new Set(),
  /** Seconds the webhooks left take, once every stream is read (see {@link progressSummary}). */
  deliveryEtaSeconds: number | null = null,
): string[] {
  const width = Math.max(5, ...job.streams.map((s) => s.streamId.length));
  // Streams the answer left out (a job of many, read by its totals): how many stand where.
  const counts = job.streamsLeftOut ? [streamCountsText(job)] : [];
  return [
    ...counts,
    ...job.streams.map((s) => {
      const line = progressBar(s.fraction, BAR_WIDTH, s.streamId.padEnd(width));
      if (s.parked) return palette.red(`${line}  parked`);
      if (s.endedBy) return palette.red(`${line}  ${s.endedBy}`);
      if (failing(s, moving)) return palette.yellow(`${line}  failing, retrying: ${s.lastError}`);
      return s.done ? palette.green(line) : line;
    }),
    palette.bold(progressBar(job.fraction, BAR_WIDTH, 'total')),
    progressSummary(job, deliveryEtaSeconds),
  ];
}

/**
 * The estimate a `--json` line adds to the job view (`estimate`): the work's fraction and the
 * reading's, the seconds left reading, delivering and in all, and the webhooks per second the
 * deliveries are expected to reach once the reading ends (null while unknown). Pure.
 */
function estimateFields(estimate: JobEstimate) {
  const { fraction, readFraction, readSecondsLeft, deliverySecondsLeft, secondsLeft } = estimate;
  return {
    fraction,
    readFraction,
    readSecondsLeft,
    deliverySecondsLeft,
    secondsLeft,
    deliveryRateAfterRead: shownRateAfterRead(estimate.deliveryRateAfterRead),
  };
}

/** Characters `line` shows, without its escape sequences (ESC [ … letter: colours, moves). */
function visibleWidth(line: string): number {
  let width = 0;
  let inEscape = false;
  for (const char of line) {
    if (inEscape) inEscape = !/[A-Za-z]/.test(char);
    else if (char === '\u001b') inEscape = true;
    else width++;
  }
  return width;
}

/**
 * The terminal rows `line` takes on a terminal `columns` wide, which wraps a longer line at
 * its right edge (one row when the width is unknown). Pure.
 * @example screenRows('x'.repeat(86), 80) // 2
 */
export function screenRows(line: string, columns: number | undefined): number {
  if (columns === undefined || !(columns > 0)) return 1;
  return Math.max(1, Math.ceil(visibleWidth(line) / columns));
}

/**
 * A function that shows each progress sample, keeping what it showed before:
 * - `tty`: redraws the bars and the figures in place (cursor up over the rows the last drawing
 *   took, lines wrapped at the terminal's `columns()` included; clear to the end of the screen);
 * - `plain`: a bar line for a stream when it appears, moves by 10%, parks (marked `parked`),
 *   starts failing its polls (marked `failing, retrying:` and the error), reads again or
 *   finishes, and a `total` line with the figures (led by the stream counts when the answer
 *   left streams out) along with those, every 10 s of the job, when
 *   the read is done, every 10 s while its webhooks are delivered, and when they all are;
 * - `json`: every sample as one JSON line (NDJSON), so the last line is the final state.
 * Writes through `out`, which ends each call with a newline.
 * @example const show = progressRenderer('plain', io.out, PLAIN_PALETTE); show(job)
 */
export function progressRenderer(
  mode: ProgressMode,
  out: (text: string) => void,
  palette: Palette,
  /** The terminal's width now (`process.stdout.columns`); undefined when unknown. */
  columns: () => number | undefined = () => undefined,
  /** Epoch ms now: the pace of the webhooks left once every stream is read (see deliveryPace). */
  now: () => number = Date.now,
): (job: BackfillJobView) => void {
  const paceOf = deliveryPace();
  const estimated = jobEstimates();
  const estimateOf = (job: BackfillJobView) => {
    const at = now();
    // The pace the pending count goes down is measured from the end of the reading: before it,
    // the count rose with every page read.
    return estimated(job, at, job.done ? paceOf(job, at) : null);
  };
  if (mode === 'json') {
    return (job) =>
      out(JSON.stringify({ ...job, estimate: estimateFields(estimateOf(job).estimate) }));
  }
  if (mode === 'tty') {
    let drawn = 0;
    const movedOf = movingTracker();
    return (sample) => {
      const { shown: job, estimate } = estimateOf(sample);
      const lines = progressLines(job, palette, movedOf(job), estimate.secondsLeft);
      // Move up over the previous drawing and clear it to the end of the screen before
      // rewriting it: a line longer than the terminal is wide (the figures take 86 characters)
      // wraps onto rows of its own, which clearing each line would leave as they were.
      const up = drawn > 0 ? `\u001b[${drawn}A\u001b[J` : '';
      out(`${up}${lines.map((line) => `\u001b[2K${line}`).join('\n')}`);
      const width = columns();
      drawn = lines.reduce((rows, line) => rows + screenRows(line, width), 0);
    };
  }
  const shown = new Map<string, { fraction: number; mark: string }>();
  let summaryAt: number | undefined;
  /** While webhooks are left after the read: when the figures were last printed, and in what state. */
  let deliveringAt: { at: number; state: string } | undefined;
  const movedOf = movingTracker();
  return (sample) => {
    const { shown: job, estimate } = estimateOf(sample);
    const eta = estimate.secondsLeft;
    const lines: string[] = [];
    const moving = movedOf(job);
    for (const stream of job.streams) {
      const fraction = stream.done ? 1 : stream.fraction;
      // What the TTY drawing adds: parked, how its part ended without completing, or that its
      // polls fail (told when it starts failing, not again for each retry's error).
      const mark =
        stream.endedBy ?? (stream.parked ? 'parked' : failing(stream, moving) ? 'failing' : '');
      const last = shown.get(stream.streamId);
      const moved = last === undefined || fraction - last.fraction >= PLAIN_STEP;
      const changed = last !== undefined && mark !== last.mark;
      if (!moved && !changed && !(stream.done && last?.fraction !== 1)) continue;
      shown.set(stream.streamId, { fraction, mark });
      const bar = progressBar(fraction, BAR_WIDTH, stream.streamId);
      const told = mark === 'failing' ? `failing, retrying: ${stream.lastError}` : mark;
      lines.push(told ? `${bar}  ${told}` : bar);
    }
    // Once read, the job's elapsed time stands still: the figures are then printed when the
    // delivery state changes and every 10 s of the wait.
    const state = `${job.done}:${job.deliveryDone}`;
    const at = now();
    const due = job.done
      ? deliveringAt === undefined ||
        deliveringAt.state !== state ||
        at - deliveringAt.at >= PLAIN_SUMMARY_EVERY_S * 1000
      : summaryAt === undefined || job.elapsedSeconds - summaryAt >= PLAIN_SUMMARY_EVERY_S;
    if (lines.length > 0 || due) {
      const percent =
        estimate.fraction === null ? 'estimating…' : `${Math.round(job.fraction * 100)}%`;
      const counts = job.streamsLeftOut ? `${streamCountsText(job)} · ` : '';
      lines.push(`total ${percent}: ${counts}${progressSummary(job, eta)}`);
      summaryAt = job.elapsedSeconds;
      if (job.done) deliveringAt = { at, state };
    }
    if (lines.length > 0) out(lines.join('\n'));
  };
}
