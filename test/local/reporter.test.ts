import { describe, expect, it } from 'vitest';
import { jsonReporter, terminalReporter } from '../../shared/local/reporter.ts';
import { PLAIN_PALETTE } from '../../shared/local/terminal.ts';
import { makeEvent } from '../publish/fixtures.ts';

function recordingOutput() {
  const writes: string[] = [];
  return { writes, output: { write: (text: string) => writes.push(text), now: () => 0 } };
}

describe('jsonReporter', () => {
  it('writes a batch of events in one write, one JSON line per event in order', () => {
    const { writes, output } = recordingOutput();
    jsonReporter(output).events([makeEvent(1), makeEvent(2), makeEvent(3)]);
    expect(writes).toHaveLength(1);
    const lines = writes[0]!.split('\n').map((line) => JSON.parse(line));
    expect(lines.map((line) => [line.message, line.subject])).toEqual([
      ['event', 'c1'],
      ['event', 'c2'],
      ['event', 'c3'],
    ]);
    expect(lines[0]).toMatchObject({
      level: 'info',
      type: 'customer.updated',
      id: makeEvent(1).id,
    });
  });

  it('names the connection of each event: its source, as in the event', () => {
    const { writes, output } = recordingOutput();
    const event = makeEvent(1);
    const other = { ...makeEvent(2), source: 'connector/hotel-prague' };
    jsonReporter(output).events([event, other]);
    const lines = writes[0]!.split('\n').map((line) => JSON.parse(line));
    expect(lines.map((line) => line.source)).toEqual([event.source, 'connector/hotel-prague']);
  });

  it('writes nothing for no events', () => {
    const { writes, output } = recordingOutput();
    jsonReporter(output).events([]);
    expect(writes).toEqual([]);
  });
});

describe('terminalReporter', () => {
  it("names the connection of an event from a connection added at run time, not the run's own", () => {
    const { writes, output } = recordingOutput();
    const own = { ...makeEvent(1), source: 'connector/local' };
    const added = { ...makeEvent(2), source: 'connector/hotel-prague' };
    terminalReporter(output, PLAIN_PALETTE).events([own, added]);
    const [ownLine, addedLine] = writes[0]!.split('\n');
    expect(ownLine).not.toContain('local');
    expect(ownLine).toMatch(/customer\.updated +c1/);
    expect(addedLine).toMatch(/customer\.updated +hotel-prague {2}c2/);
  });

  it('writes a batch of events in one write, one line per event', () => {
    const { writes, output } = recordingOutput();
    terminalReporter(output, PLAIN_PALETTE).events([makeEvent(1), makeEvent(2)]);
    expect(writes).toHaveLength(1);
    const lines = writes[0]!.split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('customer.updated');
    expect(lines[1]).toMatch(/c2/);
  });
});

describe('records set aside in a poll', () => {
  const outcome = {
    kind: 'polled' as const,
    streamId: 'local:customer',
    caughtUp: true,
    setAside: {
      records: 2,
      error:
        'customers/getAll: record set aside: the response breaks the contract at Customers[1].Email (record Id c0ffee00-0000-4000-8000-000000000001): Invalid input',
    },
  };

  it('are one warning line of the JSON reporter, naming the field and the record', () => {
    const { writes, output } = recordingOutput();
    const reporter = jsonReporter(output);
    reporter.pollOutcome(outcome);
    reporter.pollOutcome({ kind: 'polled', streamId: 'local:resource', caughtUp: true });
    expect(writes.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({
        level: 'warn',
        message: 'records set aside',
        streamId: 'local:customer',
        records: 2,
        error: outcome.setAside.error,
      }),
    ]);
  });

  it('are told of a failed poll too (the pages it saved before the failure)', () => {
    const failed = {
      kind: 'failed' as const,
      streamId: 'local:customer',
      error: 'customers/getAll: internal error',
      parked: false,
      retryAt: 0,
      setAside: outcome.setAside,
    };
    const json = recordingOutput();
    jsonReporter(json.output).pollOutcome(failed);
    expect(json.writes.map((line) => JSON.parse(line))).toContainEqual(
      expect.objectContaining({ message: 'records set aside', records: 2 }),
    );
    const terminal = recordingOutput();
    terminalReporter(terminal.output, PLAIN_PALETTE).pollOutcome(failed);
    expect(terminal.writes.join('')).toContain('2 records set aside');
  });

  it('are one line of the terminal reporter', () => {
    const { writes, output } = recordingOutput();
    terminalReporter(output, PLAIN_PALETTE).pollOutcome(outcome);
    expect(writes).toHaveLength(1);
    expect(writes[0]).toContain('2 records set aside');
    expect(writes[0]).toContain('Customers[1].Email');
  });
});

describe('a stream held back after a poll the store could not record', () => {
  const held = {
    streamId: 'local:customer',
    error:
      'DynamoDB PutItem on table change-bridge failed: InternalServerError: IO error: .bridge/dynamodb/000003.log: No space left on device',
    failures: 3,
    retryAt: 4_000,
  };

  it('is one terminal line naming the stream, the refused write, the next try and the error', () => {
    const { writes, output } = recordingOutput();
    const reporter = terminalReporter(output, PLAIN_PALETTE);
    reporter.streamHeld(held);
    reporter.streamResumed({ streamId: 'local:customer', failures: 3 });
    expect(writes).toHaveLength(2);
    expect(writes[0]).toContain(
      'stream held  local:customer: the local store refused a write: this poll is not recorded; polled again in 4s (3 failures in a row)',
    );
    expect(writes[0]).toContain('No space left on device');
    expect(writes[1]).toContain('local:customer: polled and stored again after 3 failures');
  });

  it('says only that the failure could not be stored when the error is no refused write', () => {
    const { writes, output } = recordingOutput();
    jsonReporter(output).streamHeld({ ...held, error: 'DynamoDB GetItem on table t failed: x' });
    expect(JSON.parse(writes[0]!)).toMatchObject({
      level: 'warn',
      message: expect.stringMatching(
        /^local:customer: its poll failed and the failure could not be stored: /,
      ),
      streamId: 'local:customer',
      failures: 3,
      retryAt: new Date(4_000).toISOString(),
    });
  });

  it('writes the first line at once and sums up the next minute of every stream in one line, so a thousand streams do not flood the output', () => {
    let now = 0;
    const writes: string[] = [];
    const timers: { at: number; run: () => void }[] = [];
    const output = {
      write: (text: string) => writes.push(text),
      now: () => now,
      later: (run: () => void, ms: number) => timers.push({ at: now + ms, run }),
    };
    const runTimers = () => {
      for (const timer of timers.splice(0).filter((t) => t.at <= now)) timer.run();
    };
    const reporter = jsonReporter(output);
    const streams = Array.from({ length: 1_000 }, (_, index) => `hotel-${index}:customer`);
    // Every stream's try fails, twice within the minute.
    for (const round of [0, 1])
      for (const streamId of streams) {
        now += 20;
        reporter.streamHeld({ ...held, streamId, failures: round + 1, retryAt: now + 60_000 });
      }
    expect(writes).toHaveLength(1);
    expect(JSON.parse(writes[0]!)).toMatchObject({ streamId: 'hotel-0:customer', failures: 1 });
    now = 61_000;
    runTimers();
    expect(writes).toHaveLength(2);
    expect(JSON.parse(writes[1]!)).toMatchObject({
      level: 'warn',
      message: expect.stringMatching(
        /^1999 more polls of 1000 streams not recorded in the last minute: the local store refused a write; the next try in /,
      ),
      streams: 1_000,
      tries: 1_999,
      error: held.error,
    });

    // Room again: the store says so (after the tries held since), then one line of the resumed.
    now += 1_000;
    reporter.streamHeld({ ...held, streamId: 'hotel-1:customer', retryAt: now + 60_000 });
    reporter.storeWritable(1_000);
    for (const streamId of streams) reporter.streamResumed({ streamId, failures: 2 });
    expect(writes.slice(2).map((line) => JSON.parse(line).message)).toEqual([
      '1 more poll of 1 stream not recorded in the last minute: the local store refused a write; the next try in 1m',
      'the local store takes writes again: 1000 held streams poll again now',
      'hotel-0:customer: polled and stored again after 2 failures',
    ]);
    now += 60_000;
    runTimers();
    expect(JSON.parse(writes.at(-1)!)).toMatchObject({
      message: '999 more streams polled and stored again in the last minute',
      streams: 999,
    });
    expect(writes).toHaveLength(6);
  });

  it('sums up in the terminal too', () => {
    let now = 0;
    const writes: string[] = [];
    const timers: (() => void)[] = [];
    const reporter = terminalReporter(
      { write: (text) => writes.push(text), now: () => now, later: (run) => timers.push(run) },
      PLAIN_PALETTE,
    );
    for (let index = 0; index < 1_000; index++)
      reporter.streamHeld({ ...held, streamId: `hotel-${index}:customer`, retryAt: 30_000 });
    // Tried again at 30 s, each stream's next try 40 s on.
    now = 30_000;
    for (let index = 0; index < 1_000; index++)
      reporter.streamHeld({ ...held, streamId: `hotel-${index}:customer`, retryAt: 70_000 });
    expect(writes).toHaveLength(1);
    now = 60_000;
    for (const run of timers.splice(0)) run();
    expect(writes).toHaveLength(2);
    expect(writes[1]).toContain(
      'streams held  1999 more polls of 1000 streams not recorded in the last minute: the local store refused a write; the next try in 10s',
    );
    expect(writes[1]).toContain('No space left on device');
  });

  it('names no next try in a summary whose streams were all tried since (not one long past)', () => {
    let now = 0;
    const writes: string[] = [];
    const timers: (() => void)[] = [];
    const reporter = jsonReporter({
      write: (text) => writes.push(text),
      now: () => now,
      later: (run) => timers.push(run),
    });
    reporter.streamHeld({ ...held, streamId: 'a:customer', retryAt: 2_000 });
    reporter.streamHeld({ ...held, streamId: 'b:customer', retryAt: 2_000 });
    now = 60_000;
    for (const run of timers.splice(0)) run();
    expect(JSON.parse(writes[1]!)).toMatchObject({
      message:
        '1 more poll of 1 stream not recorded in the last minute: the local store refused a write',
      nextTryAt: null,
    });
  });
});
