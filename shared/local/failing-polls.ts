import type { PollOutcome } from '../polling/poll-stream.ts';
import { lineThrottle, type ThrottleClock } from './line-throttle.ts';

/** A failed poll's outcome. */
export type FailedPoll = Extract<PollOutcome, { kind: 'failed' }>;

/** What a poll's outcome changes in a stream's failing or healthy run, worth a line. */
export type PollTurn =
  /** Its polls started failing (the first failure after a success, or since start). */
  | { kind: 'failing'; outcome: FailedPoll }
  /** An authorization error parked it (after polls that failed otherwise, too). */
  | { kind: 'parked'; outcome: FailedPoll }
  /** It polled after `failures` failed polls in a row. */
  | { kind: 'recovered'; streamId: string; failures: number };

/**
 * The streams whose last poll failed, so the output tells when a stream starts failing and
 * when it polls again rather than every failed poll: with the connector down, every stream
 * fails at each backoff step, which was a line per stream and try.
 */
export class FailingStreams {
  readonly #streams = new Map<string, { failures: number; parked: boolean }>();

  /** What `outcome` turns, if anything: undefined for a poll that goes on as the last one did. */
  turnOf(outcome: PollOutcome): PollTurn | undefined {
    const before = this.#streams.get(outcome.streamId);
    if (outcome.kind === 'failed') {
      this.#streams.set(outcome.streamId, {
        failures: (before?.failures ?? 0) + 1,
        parked: outcome.parked,
      });
      if (outcome.parked && before?.parked !== true) return { kind: 'parked', outcome };
      return before === undefined ? { kind: 'failing', outcome } : undefined;
    }
    if (outcome.kind === 'polled' && before !== undefined) {
      this.#streams.delete(outcome.streamId);
      return { kind: 'recovered', streamId: outcome.streamId, failures: before.failures };
    }
    return undefined;
  }
}

/** `1 failed poll`, `6 failed polls`. */
export function failedPolls(failures: number): string {
  return failures === 1 ? '1 failed poll' : `${failures} failed polls`;
}

/** The line of a stream that polled again (its failures in a row before). */
export function recoveredMessage(streamId: string, failures: number): string {
  return `${streamId}: polled after ${failedPolls(failures)}`;
}

/** The summary of streams that started failing during a quiet time. */
export function failingSummaryMessage(streams: number): string {
  return `${streams === 1 ? '1 more stream' : `${streams} more streams`} started failing in the last minute, each retried with backoff`;
}

/** The summary of streams that polled again during a quiet time. */
export function recoveredSummaryMessage(streams: number): string {
  return `${streams === 1 ? '1 more stream' : `${streams} more streams`} polled again in the last minute`;
}

/**
 * The lines of polls that fail (see {@link FailingStreams}): a stream that starts failing, the
 * first at once and those of the next `everyMs` summed up with the last error; a stream parked by
 * an authorization error, each; a stream that polls again, the first at once and those of the
 * next `everyMs` summed up, unless its failure was not told yet (it is then left out of the
 * failing streams' summary, and nothing is told). No line per failed poll of a stream already
 * failing.
 */
export function failingPollLines(
  clock: ThrottleClock,
  everyMs: number,
  write: {
    failing(outcome: FailedPoll): void;
    failingSummary(streams: number, error: string): void;
    parked(outcome: FailedPoll): void;
    recovered(streamId: string, failures: number): void;
    recoveredSummary(streams: number): void;
  },
): (outcome: PollOutcome) => void {
  const failingStreams = new FailingStreams();
  const failing = lineThrottle<FailedPoll, { streams: Set<string>; error: string }>(
    clock,
    everyMs,
    {
      writeOne: write.failing,
      start: (first) => ({ streams: new Set([first.streamId]), error: first.error }),
      add: (summary, next) => {
        summary.streams.add(next.streamId);
        summary.error = next.error;
      },
      writeSummary: (summary) => write.failingSummary(summary.streams.size, summary.error),
      isEmpty: (summary) => summary.streams.size === 0,
    },
  );
  const recovered = lineThrottle<{ streamId: string; failures: number }, { streams: number }>(
    clock,
    everyMs,
    {
      writeOne: ({ streamId, failures }) => write.recovered(streamId, failures),
      start: () => ({ streams: 1 }),
      add: (summary) => {
        summary.streams += 1;
      },
      writeSummary: (summary) => write.recoveredSummary(summary.streams),
    },
  );
  return (outcome) => {
    const turn = failingStreams.turnOf(outcome);
    if (turn?.kind === 'failing') failing.add(turn.outcome);
    else if (turn?.kind === 'parked') write.parked(turn.outcome);
    else if (turn?.kind === 'recovered') {
      // A failure not told yet (in the summary to come) is taken back rather than told after
      // the line that the stream polls again: a flaky connector's passing failures say nothing.
      if (failing.pending()?.streams.delete(turn.streamId)) return;
      recovered.add(turn);
    }
  };
}
