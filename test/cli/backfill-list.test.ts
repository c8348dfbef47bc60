import { afterAll, beforeAll, expect, it } from 'vitest';
import { type AdminServer, startAdminServer } from '../../shared/admin/node-server.ts';
import { runCli } from '../../shared/cli/main.ts';
import { type AdminHarness, createAdminHarness } from '../admin/support/harness.ts';

let harness: AdminHarness;
let server: AdminServer;
/** The ids of the jobs started, oldest first. */
const started: string[] = [];

/** More jobs than a page of GET /backfill holds. */
const JOBS = 103;

beforeAll(async () => {
  harness = createAdminHarness();
  for (let index = 0; index < JOBS; index++) {
    const id = `bf_${String(index).padStart(4, '0')}`;
    await harness.backfills.put({
      id,
      startedAt: harness.clock.now() + index * 1_000,
      emit: index % 2 === 0,
      entities: ['customer'],
      streamIds: ['main:customer'],
      historyStartMs: 0,
      doneAtMs: harness.clock.now(),
    });
    started.push(id);
  }
  server = await startAdminServer({ port: 0, deps: harness.deps });
});
afterAll(async () => {
  await server?.close();
  await harness?.close();
});

async function run(args: readonly string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli([...args, '--api', server.url], {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

it('lists every backfill job newest first, page after page, and says how to follow one', async () => {
  const listed = await run(['backfill', 'list']);
  expect(listed.code, listed.stderr).toBe(0);
  const lines = listed.stdout.split('\n');
  expect(lines[0]).toMatch(/^JOB\s+STARTED\s+EMIT\s+STREAMS\s+ENTITIES$/);
  const rows = lines.filter((line) => line.startsWith('bf_'));
  expect(rows.map((row) => row.split(/\s+/)[0])).toEqual([...started].reverse());
  expect(rows[0]).toMatch(/^bf_0102\s+\S+ \S+\s+yes\s+1\s+customer$/);
  expect(listed.stdout).toContain('change-bridge backfill --follow');
});

it('prints the jobs as one JSON array with --json', async () => {
  const listed = await run(['backfill', 'list', '--json']);
  expect(listed.code, listed.stderr).toBe(0);
  const jobs = JSON.parse(listed.stdout) as { id: string; streamCount: number }[];
  expect(jobs.map((job) => job.id)).toEqual([...started].reverse());
  expect(jobs[0]).toMatchObject({ emit: true, streamCount: 1, entities: ['customer'] });
});

it('refuses a flag of starting a backfill, which lists nothing, instead of passing it over', async () => {
  const listed = await run(['backfill', 'list', '--emit', '--entities', 'customer']);
  // Before: exit 0, every job listed, --emit and --entities ignored.
  expect(listed.code).toBe(2);
  expect(listed.stderr).toContain('backfill list: takes no --entities, --emit');
  expect(listed.stdout).toBe('');
});
