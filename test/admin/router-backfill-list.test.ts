import { afterEach, expect, it } from 'vitest';
import { type AdminHarness, createAdminHarness } from './support/harness.ts';

let harness: AdminHarness;
afterEach(async () => {
  await harness?.close();
});

type ListedJob = {
  id: string;
  startedAt: string;
  emit: boolean;
  entities: string[];
  streamCount: number;
  connectionsNamed: boolean;
};
type JobList = { jobs: ListedJob[]; nextCursor?: string };

/** Starts a backfill through the API a second after the last: its id. */
async function startJob(body: Record<string, unknown>): Promise<string> {
  harness.clock.advance(1_000);
  const started = await harness.call('POST', '/backfill', { body });
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  return (started.body as { id: string }).id;
}

async function list(query: Record<string, string> = {}): Promise<JobList> {
  const answer = await harness.call('GET', '/backfill', { query });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body as JobList;
}

it('lists the backfill jobs newest first, page after page, each as it was started', async () => {
  harness = createAdminHarness();
  const first = await startJob({ emit: true });
  const startedAt = new Date(harness.clock.now()).toISOString();
  const second = await startJob({ entities: ['customer'], connections: ['main'] });
  const third = await startJob({ entities: 'resource,customer' });

  const whole = await list();
  expect(whole.jobs.map((job) => job.id)).toEqual([third, second, first]);
  expect(whole.nextCursor).toBeUndefined();
  expect(whole.jobs[2]).toEqual({
    id: first,
    startedAt,
    emit: true,
    entities: ['customer', 'resource', 'taxEnvironment'],
    streamCount: 3,
    connectionsNamed: false,
  });
  expect(whole.jobs[1]).toMatchObject({
    entities: ['customer'],
    streamCount: 1,
    connectionsNamed: true,
  });

  const pageOne = await list({ limit: '2' });
  expect(pageOne.jobs.map((job) => job.id)).toEqual([third, second]);
  const pageTwo = await list({ limit: '2', cursor: pageOne.nextCursor! });
  expect(pageTwo.jobs.map((job) => job.id)).toEqual([first]);
  expect(pageTwo.nextCursor).toBeUndefined();
});

it('answers no jobs before any was started', async () => {
  harness = createAdminHarness();
  expect(await list()).toEqual({ jobs: [] });
});

it('refuses a made-up cursor and a limit out of range, naming the parameter', async () => {
  harness = createAdminHarness();
  const queries: Record<string, string>[] = [
    { cursor: 'not-a-cursor' },
    { limit: '0' },
    { limit: '101' },
  ];
  for (const query of queries) {
    const answer = await harness.call('GET', '/backfill', { query });
    expect(answer.status).toBe(400);
    expect((answer.body as { field: string }).field).toBe(Object.keys(query)[0]);
  }
});
