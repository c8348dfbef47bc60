import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliHarness } from '../admin/support/cli.ts';

let cli: Awaited<ReturnType<typeof startCliHarness>>;
beforeAll(async () => {
  cli = await startCliHarness();
});
afterAll(async () => {
  await cli?.close();
});

describe('subscriptions add --events with a pattern given twice', () => {
  it.each([
    [['--events', 'customer.updated,customer.updated'], ['customer.updated']],
    [
      ['--events', 'customer.updated', '--events', 'resource.*,customer.updated'],
      ['customer.updated', 'resource.*'],
    ],
  ])('stores and prints each pattern once, in the order given (%j)', async (flags, expected) => {
    const result = await cli.run([
      'subscriptions',
      'add',
      '--url',
      'http://127.0.0.1:8/x',
      ...flags,
      '--json',
    ]);
    expect(result.code).toBe(0);
    const { id, events } = JSON.parse(result.stdout) as { id: string; events: string[] };
    expect(events).toEqual(expected);
    expect((await cli.harness.store.getSubscription(id))?.events).toEqual(expected);
  });
});
