import { connectionIdOfSource } from '../changes/envelope.ts';
import { formatDuration } from '../duration.ts';
import type { HeldStream } from '../polling/poll-loop-options.ts';
import type { PollOutcome } from '../polling/poll-stream.ts';
import type { PublishableEvent } from '../publish/publishable-event.ts';
import type { DispatchLogger } from '../webhooks/dispatcher-deps.ts';
import {
  failingPollLines,
  failingSummaryMessage,
  recoveredMessage,
  recoveredSummaryMessage,
} from './failing-polls.ts';
import { lineThrottle, type ThrottleClock } from './line-throttle.ts';
import { LOCAL_CONNECTION_ID } from './local-connection-id.ts';
import { clockTime, formatEventLine, type Palette } from './terminal.ts';

/** Where the local runtime reports what happens: people on a TTY, machines with `--json`. */
export interface Reporter {
  info(message: string, fields?: Record<string, unknown>): void;
  /** Something the operator should act on (a setting that does nothing, say); the bridge runs on. */
  warn(message: string, fields?: Record<string, unknown>): void;
  events(events: readonly PublishableEvent[]): void;
  pollOutcome(outcome: PollOutcome): void;
  /**
   * A stream held back after a poll whose failure could not be stored either (the local store
   * refusing writes: a full disk): the first line at once, then one a minute at most summing up
   * the tries of every stream meanwhile ({@link HELD_LINES_EVERY_MS}).
   */
  streamHeld(held: HeldStream): void;
  /** A held stream polled and stored again (its lines as those of {@link streamHeld}). */
  streamResumed(resumed: { streamId: string; failures: number }): void;
  /** The local store took a write again after refusing it: `released` held streams poll now. */
  storeWritable(released: number): void;
  /** The dispatcher's logger (delivery failures). */
  dispatchLogger: DispatchLogger;
}

/** Output sink with the current time. */
export interface ReporterOutput {
  /** Writes one line, or several joined by newlines (no newline after the last). */
  write(text: string): void;
  now(): number;
  /**
   * Runs `run` once in `ms` (the summaries of held and resumed streams' lines; see
   * {@link HELD_LINES_EVERY_MS}). Default: a timer that does not keep the process alive.
   */
  later?(run: () => void, ms: number): void;
}

/**
 * How often held (and resumed) streams' lines are written at most: the first at once, those of
 * the next minute summed up in one line at its end. On a full disk every stream is held at each
 * try, and 1,000 hotels' 13,000 streams would otherwise write 13,000 lines per backoff step.
 */
export const HELD_LINES_EVERY_MS = 60_000;

/** What a summary of held streams' tries says: how many, of how many streams, the last error. */
interface HeldSummary {
  tries: number;
  /** The streams, each with the next try its last hold named. */
  streams: Map<string, number>;
  error: string;
}

/**
 * The soonest next try of a summary's streams (each by its last hold) still to come; undefined
 * when none is (each tried since, or made due as the store takes writes again).
 */
function nextTryAt(summary: HeldSummary, now: number): number | undefined {
  let soonest: number | undefined;
  for (const at of summary.streams.values())
    if (at > now && (soonest === undefined || at < soonest)) soonest = at;
  return soonest;
}

/** The clock of `output`'s line throttles: its `later`, or a timer that does not keep the process alive. */
function clockOf(output: ReporterOutput): ThrottleClock {
  return {
    now: () => output.now(),
    later:
      output.later ??
      ((run: () => void, ms: number) => {
        setTimeout(run, ms).unref();
      }),
  };
}

/**
 * The held and resumed streams' lines as the terminal and JSON reporters write them: the first
 * line of each kind at once, then at most one line a kind per {@link HELD_LINES_EVERY_MS}, a
 * summary of what came meanwhile. A line that the store takes writes again first writes the
 * held streams' summary so far.
 */
function streamLineThrottle(
  output: ReporterOutput,
  write: {
    held(held: HeldStream): void;
    heldSummary(summary: HeldSummary): void;
    resumed(resumed: { streamId: string; failures: number }): void;
    resumedSummary(streams: number): void;
  },
) {
  const clock = clockOf(output);
  const held = lineThrottle<HeldStream, HeldSummary>(clock, HELD_LINES_EVERY_MS, {
    writeOne: write.held,
    start: (first) => ({
      tries: 1,
      streams: new Map([[first.streamId, first.retryAt]]),
      error: first.error,
    }),
    add: (summary, next) => {
      summary.tries += 1;
      summary.streams.set(next.streamId, next.retryAt);
      summary.error = next.error;
    },
    writeSummary: write.heldSummary,
  });
  const resumed = lineThrottle<{ streamId: string; failures: number }, { streams: number }>(
    clock,
    HELD_LINES_EVERY_MS,
    {
      writeOne: write.resumed,
      start: () => ({ streams: 1 }),
      add: (summary) => {
        summary.streams += 1;
      },
      writeSummary: (summary) => write.resumedSummary(summary.streams),
    },
  );
  return { held: held.add, resumed: resumed.add, flushHeld: held.flush };
}

/** The summary line of held streams' tries (see {@link streamLineThrottle}). */
function heldSummaryMessage(summary: HeldSummary, now: number): string {
  const streams = summary.streams.size === 1 ? '1 stream' : `${summary.streams.size} streams`;
  const tries = summary.tries === 1 ? '1 more poll' : `${summary.tries} more polls`;
  const what = STORE_WRITE.test(summary.error)
    ? 'the local store refused a write'
    : 'their polls failed and the failures could not be stored';
  const next = nextTryAt(summary, now);
  const when = next === undefined ? '' : `; the next try in ${formatDuration(next - now)}`;
  return `${tries} of ${streams} not recorded in the last minute: ${what}${when}`;
}

function isoTimeOrNull(ms: number | undefined): string | null {
  return ms === undefined ? null : new Date(ms).toISOString();
}

function resumedSummaryMessage(streams: number): string {
  return `${streams === 1 ? '1 more stream' : `${streams} more streams`} polled and stored again in the last minute`;
}

/**
 * Writes `lines` in one write: a batch's events are one write to the terminal or pipe, not one
 * each (stdout to a pipe is written synchronously, a system call a write; printing events one by
 * one was a few per cent of the main thread in a profile of an emitting backfill).
 */
function writeLines(output: ReporterOutput, lines: readonly string[]): void {
  if (lines.length > 0) output.write(lines.join('\n'));
}

/** The store operations that write (their names open the state store's errors). */
const STORE_WRITE = /^DynamoDB (PutItem|UpdateItem|DeleteItem|BatchWriteItem|TransactWriteItems) /;

/**
 * What a held stream's line says happened: the local store refused a write (what a full disk
 * does), or, for any other error, that the failure could not be stored.
 */
export function heldStreamMessage(held: HeldStream): string {
  const what = STORE_WRITE.test(held.error)
    ? 'the local store refused a write'
    : 'its poll failed and the failure could not be stored';
  return `${held.streamId}: ${what}: this poll is not recorded`;
}

/** When a held stream is tried again, as its line says it. */
function retryText(held: HeldStream, now: number): string {
  const attempts = held.failures === 1 ? '1 failure' : `${held.failures} failures in a row`;
  return `polled again in ${formatDuration(Math.max(0, held.retryAt - now))} (${attempts})`;
}

function resumedMessage(resumed: { streamId: string; failures: number }): string {
  const after = resumed.failures === 1 ? '1 failure' : `${resumed.failures} failures`;
  return `${resumed.streamId}: polled and stored again after ${after}`;
}

function writableMessage(released: number): string {
  const streams = released === 1 ? '1 held stream polls' : `${released} held streams poll`;
  return `the local store takes writes again: ${streams} again now`;
}

/** One JSON object per line: `{ time, level, message, ...fields }`. */
export function jsonReporter(output: ReporterOutput): Reporter {
  /** A line at `time` (ISO 8601; default now): a batch's lines share one. */
  const jsonLine = (
    level: string,
    message: string,
    fields: Record<string, unknown> = {},
    time = new Date(output.now()).toISOString(),
  ) => JSON.stringify({ time, level, message, ...fields });
  const emit = (level: string, message: string, fields?: Record<string, unknown>) =>
    output.write(jsonLine(level, message, fields));
  const lines = streamLineThrottle(output, {
    held: (held) =>
      emit('warn', `${heldStreamMessage(held)}; ${retryText(held, output.now())}`, {
        streamId: held.streamId,
        error: held.error,
        failures: held.failures,
        retryAt: new Date(held.retryAt).toISOString(),
      }),
    heldSummary: (summary) =>
      emit('warn', heldSummaryMessage(summary, output.now()), {
        streams: summary.streams.size,
        tries: summary.tries,
        error: summary.error,
        nextTryAt: isoTimeOrNull(nextTryAt(summary, output.now())),
      }),
    resumed: (resumed) => emit('info', resumedMessage(resumed), { ...resumed }),
    resumedSummary: (streams) => emit('info', resumedSummaryMessage(streams), { streams }),
  });
  const pollLines = failingPollLines(clockOf(output), HELD_LINES_EVERY_MS, {
    failing: (outcome) => emit('warn', 'poll failed', { ...outcome }),
    failingSummary: (streams, error) =>
      emit('warn', failingSummaryMessage(streams), { streams, error }),
    parked: (outcome) => emit('warn', 'poll failed', { ...outcome }),
    recovered: (streamId, failures) =>
      emit('info', recoveredMessage(streamId, failures), { streamId, failures }),
    recoveredSummary: (streams) => emit('info', recoveredSummaryMessage(streams), { streams }),
  });
  return {
    info: (message, fields) => emit('info', message, fields),
    warn: (message, fields) => emit('warn', message, fields),
    events: (events) => {
      // One time for the batch, written at once: a line each.
      const time = new Date(output.now()).toISOString();
      writeLines(
        output,
        events.map((event) =>
          jsonLine(
            'info',
            'event',
            {
              id: event.id,
              type: event.type,
              // `connector/<connectionId>`: which hotel, once connections are many.
              source: event.source,
              subject: event.subject,
              changedFields: event.data.changedFields ?? [],
            },
            time,
          ),
        ),
      );
    },
    pollOutcome: (outcome) => {
      pollLines(outcome);
      if (outcome.setAside)
        emit('warn', 'records set aside', {
          streamId: outcome.streamId,
          records: outcome.setAside.records,
          error: outcome.setAside.error,
        });
    },
    streamHeld: lines.held,
    streamResumed: lines.resumed,
    storeWritable: (released) => {
      lines.flushHeld();
      emit('info', writableMessage(released), { released });
    },
    dispatchLogger: {
      warn: (message, fields) => emit('warn', message, fields),
      error: (message, fields) => emit('error', message, fields),
    },
  };
}

/**
 * The connection an event's `source` (`connector/<connectionId>`) names, unless it is the run's
 * own (`local`, the CONNECTOR_* variables' or the simulator's): with connections added at run
 * time, which hotel a line is about. Pure.
 */
function addedConnectionOf(source: string): string | undefined {
  const id = connectionIdOfSource(source);
  return id === LOCAL_CONNECTION_ID ? undefined : id;
}

/** Concise lines for people: one per event, one per failure. */
export function terminalReporter(output: ReporterOutput, palette: Palette): Reporter {
  const line = (text: string) => output.write(text);
  const problem = (label: string, message: string, fields: Record<string, unknown> = {}) => {
    const detail = ['subscriptionId', 'deliveryId', 'status', 'error', 'reason']
      .filter((key) => fields[key] !== undefined)
      .map((key) => `${key}=${String(fields[key])}`)
      .join(' ');
    line(
      `${palette.dim(clockTime(output.now()))}  ${label}  ${message}${detail ? `  ${palette.dim(detail)}` : ''}`,
    );
  };
  const lines = streamLineThrottle(output, {
    held: (held) =>
      problem(
        palette.red('stream held'),
        `${heldStreamMessage(held)}; ${retryText(held, output.now())}`,
        { error: held.error },
      ),
    heldSummary: (summary) =>
      problem(palette.red('streams held'), heldSummaryMessage(summary, output.now()), {
        error: summary.error,
      }),
    resumed: (resumed) => problem(palette.green('stream resumed'), resumedMessage(resumed)),
    resumedSummary: (streams) =>
      problem(palette.green('streams resumed'), resumedSummaryMessage(streams)),
  });
  const pollLines = failingPollLines(clockOf(output), HELD_LINES_EVERY_MS, {
    failing: (outcome) =>
      problem(
        palette.red('poll failed'),
        `${outcome.streamId}: ${outcome.error} (retried with backoff; a line tells when it polls again)`,
      ),
    failingSummary: (streams, error) =>
      problem(palette.red('polls failing'), failingSummaryMessage(streams), { error }),
    parked: (outcome) =>
      problem(palette.red('stream parked'), `${outcome.streamId}: ${outcome.error}`),
    recovered: (streamId, failures) =>
      problem(palette.green('polls again'), recoveredMessage(streamId, failures)),
    recoveredSummary: (streams) =>
      problem(palette.green('polls again'), recoveredSummaryMessage(streams)),
  });
  return {
    info: (message) => line(message),
    warn: (message, fields) => problem(palette.yellow('warning'), message, fields),
    events: (events) =>
      writeLines(
        output,
        events.map((event) =>
          formatEventLine(
            {
              time: Date.parse(event.time),
              type: event.type,
              subject: event.subject ?? '',
              changedFields: event.data.changedFields ?? [],
              connection: addedConnectionOf(event.source),
            },
            palette,
          ),
        ),
      ),
    pollOutcome: (outcome) => {
      pollLines(outcome);
      if (outcome.setAside) {
        const { records, error } = outcome.setAside;
        problem(
          palette.yellow(records === 1 ? 'record set aside' : `${records} records set aside`),
          `${outcome.streamId}: ${error}`,
        );
      }
    },
    streamHeld: lines.held,
    streamResumed: lines.resumed,
    storeWritable: (released) => {
      lines.flushHeld();
      problem(palette.green('store writable'), writableMessage(released));
    },
    dispatchLogger: {
      warn: (message, fields) => problem(palette.yellow('delivery'), message, fields),
      error: (message, fields) => problem(palette.red('delivery'), message, fields),
    },
  };
}
