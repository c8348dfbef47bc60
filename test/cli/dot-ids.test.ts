import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliHarness } from '../admin/support/cli.ts';

let cli: Awaited<ReturnType<typeof startCliHarness>>;
beforeAll(async () => {
  cli = await startCliHarness();
});
afterAll(async () => {
  await cli?.close();
});

// A URL folds a `.` or `..` segment away: `events show ..` asked for GET / (the console's page)
// and `subscriptions remove ..` for DELETE /, so the user read "not JSON" or "method not
// allowed" about a request they never meant.
describe('an id of . or ..', () => {
  it.each([
    [['events', 'show', '..'], 'id'],
    [['events', 'replay', '.'], 'id'],
    [['subscriptions', 'remove', '..'], 'id'],
    [['subscriptions', 'disable', '..'], 'id'],
    [['deliveries', 'redeliver', '--subscription', '..'], '--subscription'],
    [['backfill', '--follow', '..'], '--follow'],
  ])('%j exits 2 naming %s, sending nothing', async (args, field) => {
    const result = await cli.run(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${field}: must not be . or ..`);
    expect(result.stdout).toBe('');
  });
});
