import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliHarness } from '../admin/support/cli.ts';

let cli: Awaited<ReturnType<typeof startCliHarness>>;
beforeAll(async () => {
  cli = await startCliHarness();
});
afterAll(async () => {
  await cli?.close();
});

/** Runs `backfill --poll-interval VALUE`, giving up (as 'running') after a second. */
async function backfillWith(value: string) {
  const run = cli.run(['backfill', '--entities', 'customer', '--poll-interval', value]);
  return Promise.race([run, new Promise<'running'>((r) => setTimeout(() => r('running'), 1000))]);
}

describe('change-bridge backfill --poll-interval', () => {
  it.each([
    ['1ms', 'must be at least 100ms'],
    // A bare number is milliseconds, as for start: "1" is 1 ms, not 1 s.
    ['1', 'must be at least 100ms'],
    ['0.05s', 'must be at least 100ms'],
    ['0', 'must be at least 100ms'],
    // Past what a timer can wait, node waits 1 ms instead: the job would be read non-stop.
    ['25d', 'must be at most 24d'],
    ['-1s', 'is not a duration'],
  ])('refuses %s with exit 2 naming the flag, before any backfill starts', async (value, why) => {
    const result = await backfillWith(value);
    expect(result).not.toBe('running');
    if (result === 'running') return;
    expect(result.code).toBe(2);
    // Said as start says its --poll-interval: a configuration error.
    expect(result.stderr.split('\n')[0]).toMatch(
      new RegExp(`^error: configuration is invalid: --poll-interval: ${why}`),
    );
    expect(result.stdout).toBe('');
    // No job was started: the stream was not reset for one.
    expect(await cli.harness.state.getStream('main:customer')).toBeUndefined();
  });
});
