import { formatDuration } from '../duration.ts';
import type { HeldStream } from '../polling/poll-runner.ts';
import type { PollOutcome } from '../polling/poll-stream.ts';
import type { PublishableEvent } from '../publish/publishable-event.ts';
import type { DispatchLogger } from '../webhooks/dispatcher-deps.ts';
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
   * refusing writes: a full disk): one line per failed try, so one per backoff step.
   */
  streamHeld(held: HeldStream): void;
  /** A held stream polled and stored again. */
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
  const jsonLine = (level: string, message: string, fields: Record<string, unknown> = {}) =>
    JSON.stringify({ time: new Date(output.now()).toISOString(), level, message, ...fields });
  const emit = (level: string, message: string, fields?: Record<string, unknown>) =>
    output.write(jsonLine(level, message, fields));
  return {
    info: (message, fields) => emit('info', message, fields),
    warn: (message, fields) => emit('warn', message, fields),
    events: (events) =>
      writeLines(
        output,
        events.map((event) =>
          jsonLine('info', 'event', {
            id: event.id,
            type: event.type,
            subject: event.subject,
            changedFields: event.data.changedFields ?? [],
          }),
        ),
      ),
    pollOutcome: (outcome) => {
      if (outcome.kind === 'failed') emit('warn', 'poll failed', { ...outcome });
      if (outcome.setAside)
        emit('warn', 'records set aside', {
          streamId: outcome.streamId,
          records: outcome.setAside.records,
          error: outcome.setAside.error,
        });
    },
    streamHeld: (held) =>
      emit('warn', `${heldStreamMessage(held)}; ${retryText(held, output.now())}`, {
        streamId: held.streamId,
        error: held.error,
        failures: held.failures,
        retryAt: new Date(held.retryAt).toISOString(),
      }),
    streamResumed: (resumed) => emit('info', resumedMessage(resumed), { ...resumed }),
    storeWritable: (released) => emit('info', writableMessage(released), { released }),
    dispatchLogger: {
      warn: (message, fields) => emit('warn', message, fields),
      error: (message, fields) => emit('error', message, fields),
    },
  };
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
            },
            palette,
          ),
        ),
      ),
    pollOutcome: (outcome) => {
      if (outcome.kind === 'failed') {
        problem(
          palette.red(outcome.parked ? 'stream parked' : 'poll failed'),
          `${outcome.streamId}: ${outcome.error}`,
        );
      }
      if (outcome.setAside) {
        const { records, error } = outcome.setAside;
        problem(
          palette.yellow(records === 1 ? 'record set aside' : `${records} records set aside`),
          `${outcome.streamId}: ${error}`,
        );
      }
    },
    streamHeld: (held) =>
      problem(
        palette.red('stream held'),
        `${heldStreamMessage(held)}; ${retryText(held, output.now())}`,
        { error: held.error },
      ),
    streamResumed: (resumed) => problem(palette.green('stream resumed'), resumedMessage(resumed)),
    storeWritable: (released) =>
      problem(palette.green('store writable'), writableMessage(released)),
    dispatchLogger: {
      warn: (message, fields) => problem(palette.yellow('delivery'), message, fields),
      error: (message, fields) => problem(palette.red('delivery'), message, fields),
    },
  };
}
