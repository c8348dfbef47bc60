import { describe, expect, it } from 'vitest';
import { jsonReporter, type Reporter, terminalReporter } from '../../shared/local/reporter.ts';
import { PLAIN_PALETTE } from '../../shared/local/terminal.ts';
import type { PollOutcome } from '../../shared/polling/poll-stream.ts';

/** An output with a clock and timers the test moves by hand. */
function manualOutput() {
  let now = 0;
  const writes: string[] = [];
  const timers: { at: number; run: () => void }[] = [];
  return {
    writes,
    output: {
      write: (text: string) => writes.push(text),
      now: () => now,
      later: (run: () => void, ms: number) => timers.push({ at: now + ms, run }),
    },
    advance(ms: number) {
      now += ms;
      for (const timer of timers.splice(0)) {
        if (timer.at <= now) timer.run();
        else timers.push(timer);
      }
    },
  };
}

const STREAMS = ['customer', 'resource', 'accountNote', 'paymentRequest', 'taxEnvironment'].map(
  (entity) => `local:${entity}`,
);
const REFUSED = 'no answer from the Connector API (connect ECONNREFUSED 127.0.0.1:4010)';

const failed = (streamId: string, error = `getAll: ${REFUSED}`): PollOutcome => ({
  kind: 'failed',
  streamId,
  error,
  parked: false,
  retryAt: 0,
});
const polled = (streamId: string): PollOutcome => ({ kind: 'polled', streamId, caughtUp: true });

/** The connector down for `rounds` polls of every stream, `everyMs` apart. */
function connectorDown(reporter: Reporter, advance: (ms: number) => void, rounds: number) {
  for (let round = 0; round < rounds; round++) {
    for (const streamId of STREAMS) reporter.pollOutcome(failed(streamId));
    advance(10_000);
  }
}

describe('polls failing while the connector is down', () => {
  it('are told once when they start failing, not a line per poll, and once when they poll again', () => {
    const { writes, output, advance } = manualOutput();
    const reporter = terminalReporter(output, PLAIN_PALETTE);
    // 5 streams, 12 failed polls each over two minutes.
    connectorDown(reporter, advance, 12);
    expect(writes).toHaveLength(2);
    expect(writes[0]).toContain(`poll failed  local:customer: getAll: ${REFUSED}`);
    expect(writes[0]).toContain('retried with backoff');
    expect(writes[1]).toContain('polls failing  4 more streams started failing in the last minute');
    expect(writes[1]).toContain(REFUSED);

    // Back: each stream's next poll succeeds.
    for (const streamId of STREAMS) reporter.pollOutcome(polled(streamId));
    for (const streamId of STREAMS) reporter.pollOutcome(polled(streamId));
    expect(writes.slice(2)).toEqual([
      expect.stringContaining('polls again  local:customer: polled after 12 failed polls'),
    ]);
    advance(60_000);
    expect(writes.slice(3)).toEqual([
      expect.stringContaining('polls again  4 more streams polled again in the last minute'),
    ]);
    expect(writes).toHaveLength(4);
  });

  it('never tells a stream polling again before its failure was told: the summary leaves it out', () => {
    const { writes, output, advance } = manualOutput();
    const reporter = terminalReporter(output, PLAIN_PALETTE);
    // A short outage: back within the minute, for local:resource first.
    for (const streamId of STREAMS) reporter.pollOutcome(failed(streamId));
    reporter.pollOutcome(polled('local:resource'));
    advance(60_000);
    expect(writes).toHaveLength(2);
    expect(writes[1]).toContain('polls failing  3 more streams started failing in the last minute');
    // The first, told at once, is told polling again too.
    reporter.pollOutcome(polled('local:customer'));
    expect(writes[2]).toContain('polls again  local:customer: polled after 1 failed poll');
  });

  it('counts a stream once in a summary, and none failing and polling again within it (a flaky connector)', () => {
    const { writes, output, advance } = manualOutput();
    const reporter = jsonReporter(output);
    reporter.pollOutcome(failed('local:customer'));
    for (let round = 0; round < 5; round++) {
      for (const streamId of ['local:resource', 'local:accountNote']) {
        reporter.pollOutcome(failed(streamId));
        reporter.pollOutcome(failed(streamId));
        if (streamId === 'local:resource') reporter.pollOutcome(polled(streamId));
      }
      advance(5_000);
    }
    advance(60_000);
    expect(writes.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ message: 'poll failed', streamId: 'local:customer' }),
      expect.objectContaining({
        message: '1 more stream started failing in the last minute, each retried with backoff',
        streams: 1,
      }),
    ]);
  });

  it('writes a JSON line when a stream starts failing and when it polls again, not per poll', () => {
    const { writes, output, advance } = manualOutput();
    const reporter = jsonReporter(output);
    for (let round = 0; round < 6; round++) {
      reporter.pollOutcome(failed('local:customer'));
      advance(10_000);
    }
    reporter.pollOutcome(polled('local:customer'));
    expect(writes.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({
        level: 'warn',
        message: 'poll failed',
        streamId: 'local:customer',
        error: `getAll: ${REFUSED}`,
      }),
      expect.objectContaining({
        level: 'info',
        message: 'local:customer: polled after 6 failed polls',
        streamId: 'local:customer',
        failures: 6,
      }),
    ]);
  });

  it('still tells a stream parked by a 401, once, after it was failing for another reason', () => {
    const { writes, output, advance } = manualOutput();
    const reporter = terminalReporter(output, PLAIN_PALETTE);
    reporter.pollOutcome(failed('local:customer'));
    reporter.pollOutcome(failed('local:customer'));
    const parked: PollOutcome = {
      ...failed('local:customer', 'customers/getAll failed (authorization, HTTP 401)'),
      parked: true,
    } as PollOutcome;
    reporter.pollOutcome(parked);
    // Its retry every 30 minutes is refused again: nothing new to tell.
    advance(30 * 60_000);
    reporter.pollOutcome(parked);
    expect(writes).toHaveLength(2);
    expect(writes[1]).toContain(
      'stream parked  local:customer: customers/getAll failed (authorization, HTTP 401)',
    );
  });
});
