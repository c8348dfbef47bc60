import { describe, expect, it } from 'vitest';
import { findChromium } from './console-browser.ts';
import { type FakeAnswer, startFakeConsoleApi, useConsoleBrowser } from './console-fake-api.ts';

const CHROMIUM = findChromium(process.env);
const WAIT_MS = 30_000;
const AT = '2026-03-01T10:00:00.000Z';
/** An older job, shown by its id: an id of the shape the bridge makes (`bf_` and 26 characters). */
const OLD_JOB_ID = 'bf_0123456789ABCDEFGHJKMNPQRS';

function job(id: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    startedAt: AT,
    emit: false,
    fraction: 0.41,
    done: false,
    deliveryDone: false,
    streams: [],
    streamCounts: { total: 3, reading: 2, parked: 1, ended: 0, caughtUp: 0 },
    streamsLeftOut: 3,
    recordsRead: 41_200,
    eventsPublished: 41_100,
    webhooksDelivered: 39_870,
    webhooksDeadLettered: 2,
    webhooksLeft: 1228,
    eventsQueued: 0,
    elapsedSeconds: 30,
    finishedAt: null,
    etaSeconds: 12,
    ...extra,
  };
}

/** A job as `GET /backfill` lists it. */
function listed(id: string, emit = false) {
  return {
    id,
    startedAt: AT,
    emit,
    entities: ['customer'],
    streamCount: 3,
    connectionsNamed: false,
  };
}

/**
 * A fake admin API listing a running backfill started elsewhere (no stream of this page runs
 * it, nor did this browser start it) and a finished one, with POST /backfill starting another
 * and an older job that only its id reaches.
 */
function backfillsApi() {
  const jobs = new Map([
    ['bf_running', job('bf_running')],
    [
      'bf_done',
      job('bf_done', {
        fraction: 1,
        done: true,
        deliveryDone: true,
        etaSeconds: 0,
        webhooksLeft: 0,
        streamCounts: { total: 3, reading: 0, parked: 0, ended: 0, caughtUp: 3 },
        finishedAt: AT,
      }),
    ],
    [OLD_JOB_ID, job(OLD_JOB_ID, { recordsRead: 7 })],
  ]);
  const list = [listed('bf_running'), listed('bf_done')];
  return (method: string, path: string): FakeAnswer | undefined => {
    const url = new URL(path, 'http://fake');
    if (method === 'GET' && url.pathname === '/backfill') return { body: { jobs: list } };
    const read = /^\/backfill\/([^/]+)$/.exec(url.pathname);
    if (method === 'GET' && read) {
      const found = jobs.get(read[1]!);
      return found
        ? { body: found }
        : { status: 404, body: { error: `backfill job ${read[1]} does not exist` } };
    }
    if (method === 'POST' && url.pathname === '/backfill') {
      const started = job('bf_new', {
        emit: true,
        fraction: 0,
        etaSeconds: null,
        streamCounts: { total: 1, reading: 1, parked: 0, ended: 0, caughtUp: 0 },
        recordsRead: 0,
        eventsPublished: 0,
        webhooksDelivered: 0,
        webhooksDeadLettered: 0,
        webhooksLeft: 0,
      });
      jobs.set(started.id, started);
      list.unshift(listed('bf_new', true));
      return { status: 202, body: started };
    }
    return undefined;
  };
}

describe.skipIf(!CHROMIUM)('backfills view of the console, in Chromium', () => {
  const b = useConsoleBrowser(CHROMIUM!, WAIT_MS);

  it('shows the progress of the jobs the API lists, wherever started, and starts one for an entity type once confirmed', async () => {
    b.fake = await startFakeConsoleApi(backfillsApi());
    await b.page.goto(`${b.fake.url}/`);
    const streamReads = () => b.fake!.requests.filter((r) => r.path.startsWith('/streams')).length;
    await b.page.getByRole('navigation').getByRole('link', { name: 'Backfills' }).click();
    const readsBefore = streamReads();
    const table = b.page.getByRole('table', { name: 'Backfill jobs' });
    const running = table.getByRole('row').filter({ hasText: 'bf_running' });
    await running.getByText('3 streams: 2 reading, 1 parked').waitFor();
    const text = (await running.textContent()) ?? '';
    expect(text).toContain('41%');
    expect(text).toContain('41,200 records read');
    expect(text).toContain('39,870 delivered');
    expect(text).toContain('1,228 left');
    expect(text).toContain('reading, about 12 s left');
    await table
      .getByRole('row')
      .filter({ hasText: 'bf_done' })
      .getByText('3 streams: 3 caught up')
      .waitFor();
    // The totals alone: not every stream of a job of thousands at each refresh.
    expect(b.fake.requests.some((r) => r.path === '/backfill/bf_running?streams=0')).toBe(true);
    // Listed by the API: no stream is read to find the jobs.
    expect(streamReads()).toBe(readsBefore);

    const dialog = b.page.getByRole('dialog');
    const writes = () => b.fake!.requests.filter((r) => r.method !== 'GET');
    await b.page.getByLabel('Entity types').fill('customer');
    await b.page.getByLabel('Publish every entity as created').check();
    await b.page.getByRole('button', { name: 'Start backfill' }).click();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(writes()).toEqual([]);
    await b.page.getByRole('button', { name: 'Start backfill' }).click();
    await dialog.getByRole('button', { name: 'Start backfill' }).click();
    const rows = table.getByRole('row');
    await rows.filter({ hasText: 'bf_new' }).getByText('1 stream: 1 reading').waitFor();
    expect(writes().map((r) => [r.method, r.path, r.body])).toEqual([
      ['POST', '/backfill', { entities: ['customer'], emit: true }],
    ]);
    await expect.poll(() => b.page.locator('#status').textContent()).toContain('bf_new');
    // Newest first, as listed; a job whose webhooks are all delivered is not read again.
    expect(await rows.locator('td code').allTextContents()).toEqual([
      'bf_new',
      'bf_running',
      'bf_done',
    ]);
    expect(b.fake.requests.filter((r) => r.path === '/backfill/bf_done?streams=0')).toHaveLength(1);

    // A text that is no backfill id is refused in the CLI's words, the API not asked.
    const asked = b.fake.requests.length;
    await b.page.getByLabel('Job id').fill('bf_old');
    await b.page.getByRole('button', { name: 'Show job' }).click();
    await expect
      .poll(() => b.page.locator('#status').textContent())
      .toBe(
        'Job id: must be a backfill id: bf_ and 26 characters, as backfill and backfill list print it',
      );
    expect(b.fake.requests.slice(asked).filter((r) => r.path.includes('bf_old'))).toEqual([]);

    // An older job the first b.page leaves out is shown by its id.
    await b.page.getByLabel('Job id').fill(OLD_JOB_ID);
    await b.page.getByRole('button', { name: 'Show job' }).click();
    await rows
      .filter({ hasText: OLD_JOB_ID })
      .getByText('7 records read', { exact: false })
      .waitFor();

    // Listed on the next visit by the API, not by this browser.
    await b.page.reload();
    await table.getByRole('row').filter({ hasText: 'bf_new' }).waitFor();
    expect(b.problems).toEqual([]);
  }, 60_000);
});
