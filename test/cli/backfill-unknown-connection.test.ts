import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliHarness } from '../admin/support/cli.ts';

let cli: Awaited<ReturnType<typeof startCliHarness>>;
beforeAll(async () => {
  cli = await startCliHarness();
  const add = ['connections', 'add', '--id', 'paused', '--access-token-stdin'];
  expect((await cli.run(add, { stdin: 'paused-token' })).code).toBe(0);
  expect((await cli.run(['connections', 'disable', 'paused'])).code).toBe(0);
});
afterAll(async () => {
  await cli?.close();
});

describe('backfill --connection naming no connection it can backfill', () => {
  it('exits 1 saying the connection does not exist, as streams list --connection and connections show do', async () => {
    const result = await cli.run(['backfill', '--connection', 'main,other']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('connection other does not exist');
    expect((await cli.harness.backfills.list({ limit: 10 })).jobs).toEqual([]);
  });

  it('exits 1 saying a disabled connection is disabled, as a replay to a disabled subscription does', async () => {
    const result = await cli.run(['backfill', '--connection', 'paused', '--json']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('--connection: connection paused is disabled');
    expect(result.stderr).toContain('connections enable paused');
  });

  it('still exits 2 naming --connection for an id no connection can have', async () => {
    const result = await cli.run(['backfill', '--connection', 'no spaces']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--connection: no spaces: must be 1 to 64 letters');
  });
});
