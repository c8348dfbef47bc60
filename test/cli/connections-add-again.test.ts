import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBodySchema } from '../../shared/admin/schemas.ts';
import { type CliRun, startCliHarness } from '../admin/support/cli.ts';

const TOKEN = 'cli-retry-token-4e19';
const ADD = [
  'connections',
  'add',
  '--id',
  'hotel-1',
  '--access-token-stdin',
  '--entities',
  'customer,resource',
  '--interval',
  '1m',
];

let cli: Awaited<ReturnType<typeof startCliHarness>>;
const runs: CliRun[] = [];

async function run(args: readonly string[], stdin?: string): Promise<CliRun> {
  const result = await cli.run(args, stdin === undefined ? {} : { stdin });
  runs.push(result);
  return result;
}

beforeAll(async () => {
  cli = await startCliHarness();
});
afterAll(async () => {
  for (const result of runs) expect(`${result.stdout}\n${result.stderr}`).not.toContain(TOKEN);
  await cli?.close();
});

describe('change-bridge connections add, run again after the first add landed', () => {
  it('exits 0 saying the connection was added already and nothing changed', async () => {
    const first = await run(ADD, `${TOKEN}\n`);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('Added connection hotel-1 (enabled, store)');
    const stored = await cli.harness.connections.get('hotel-1');

    const again = await run(ADD, `${TOKEN}\n`);

    expect(again.code).toBe(0);
    expect(again.stdout).toContain(
      'Added already, unchanged (the same id, settings and token): connection hotel-1 (enabled, store)',
    );
    expect(again.stdout).not.toContain('Added connection');
    expect(await cli.harness.connections.get('hotel-1')).toEqual(stored);
  });

  it('prints the stored connection with --json, as the first add did', async () => {
    const again = await run([...ADD, '--json'], TOKEN);

    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({
      id: 'hotel-1',
      entities: ['customer', 'resource'],
      intervalMs: 60_000,
      enabled: true,
    });
  });

  it('says in --json whether the add created the connection (true) or found it stored (false)', async () => {
    const add = ['connections', 'add', '--id', 'hotel-2', '--access-token-stdin', '--json'];
    const first = await run(add, TOKEN);
    const again = await run(add, TOKEN);

    expect(first.code).toBe(0);
    expect(again.code).toBe(0);
    const created = JSON.parse(first.stdout);
    const found = JSON.parse(again.stdout);
    expect(created.created).toBe(true);
    expect(found.created).toBe(false);
    // Every other field is the connection as stored, the same in both.
    const { created: _created, ...createdFields } = created;
    const { created: _found, ...foundFields } = found;
    expect(foundFields).toEqual(createdFields);
    expect(createdFields).toMatchObject({ id: 'hotel-2', enabled: true });
  });

  it('exits 1 saying the id is taken by a different definition when a setting or the token differs', async () => {
    const otherToken = await run(ADD, 'another-token');
    const otherInterval = await run([...ADD.slice(0, -1), '2m'], TOKEN);

    expect(otherToken.code).toBe(1);
    expect(otherToken.stderr).toContain(
      'connection hotel-1 exists already, taken by a different definition (--access-token-stdin differs)',
    );
    expect(otherToken.stderr).not.toContain('another-token');
    expect(otherInterval.code).toBe(1);
    expect(otherInterval.stderr).toContain('taken by a different definition (--interval differs)');
  });

  it('names the flags the user typed for each setting that differs, the token by the flag it came from', async () => {
    const both = await run(
      [...ADD.slice(0, -3), 'customer', '--interval', '2m', '--access-token-stdin'],
      'another-token',
    );

    expect(both.code).toBe(1);
    expect(both.stderr).toContain(
      'taken by a different definition (--entities, --interval, --access-token-stdin differ)',
    );
    expect(both.stderr).not.toMatch(/(?<!-)\b(accessToken|interval|entities)\b/);
  });

  it('keeps the field names in the 409 the admin API answers, and lists them in fields', async () => {
    const answer = await fetch(`${cli.server.url}/connections`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'hotel-1', accessToken: 'another-token', interval: '2m' }),
    });

    expect(answer.status).toBe(409);
    const body = ErrorBodySchema.parse(await answer.json());
    expect(body.error).toContain('taken by a different definition (');
    expect(body.error).toContain('interval, accessToken differ');
    expect(body.fields).toEqual(expect.arrayContaining(['interval', 'accessToken']));
    expect(body.error).toContain(`(${body.fields?.join(', ')} differ)`);
  });
});
