import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BackfillJobView } from '../../shared/admin/backfill-view.ts';
import { runCli } from '../../shared/cli/main.ts';
import { systemClock } from '../../shared/clock.ts';

/** The job's id, shaped as the bridge makes them (`backfill --follow` takes no other). */
const JOB_ID = 'bf_0123456789ABCDEFGHJKMNPQRS';

/** A job view as the admin API answers it, done or not. */
function jobView(done: boolean): BackfillJobView {
  const stream = {
    streamId: 'local:customer',
    entityType: 'customer',
    fraction: done ? 1 : 0.5,
    done,
    watermark: null,
    parked: false,
    lastError: null,
    endedBy: null,
    recordsRead: 10,
    eventsPublished: 10,
    webhooksDelivered: 0,
    webhooksDeadLettered: 0,
    webhooksLeft: 0,
    eventsQueued: 0,
  };
  return {
    id: JOB_ID,
    startedAt: '2026-11-29T00:00:00.000Z',
    emit: true,
    fraction: stream.fraction,
    done,
    deliveryDone: done,
    streams: [stream],
    recordsRead: 10,
    eventsPublished: 10,
    webhooksDelivered: 0,
    webhooksDeadLettered: 0,
    webhooksLeft: 0,
    eventsQueued: 0,
    elapsedSeconds: 1,
    finishedAt: done ? '2026-11-29T00:00:01.000Z' : null,
    etaSeconds: done ? 0 : 1,
  };
}

/** An admin API answering POST /backfill with a running job and GET with `get()`. */
function adminApi(get: () => BackfillJobView, port = 0): Promise<Server> {
  const server = createServer((request, response) => {
    const body = request.method === 'POST' ? jobView(false) : get();
    response.writeHead(request.method === 'POST' ? 202 : 200, {
      'content-type': 'application/json',
    });
    response.end(JSON.stringify(body));
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

const servers: Server[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

describe('backfill across a restart of the bridge', () => {
  it('waits for the bridge to answer again and follows the job to its end, instead of exiting 1', async () => {
    let gets = 0;
    const first = await adminApi(() => {
      gets++;
      return jobView(false);
    });
    servers.push(first);
    const { port } = first.address() as AddressInfo;
    const errors: string[] = [];
    const out: string[] = [];
    const running = runCli(
      ['backfill', '--api', `http://127.0.0.1:${port}`, '--poll-interval', '100ms', '--json'],
      { out: (text) => out.push(text), err: (text) => errors.push(text) },
    );
    // The bridge stops (a restart) after answering a read, and comes back 1.5 s later, done.
    while (gets === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    first.closeAllConnections();
    await new Promise((resolve) => first.close(resolve));
    servers.splice(0);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    servers.push(await adminApi(() => jobView(true), port));
    expect(await running).toBe(0);
    expect(errors.join('\n')).toContain('waiting for it to come back');
    expect(JSON.parse(out.at(-1)!)).toMatchObject({ id: JOB_ID, done: true });
  });
});

describe('backfill once every stream is read', () => {
  it('waits for the webhooks, and exits 1 saying how many are left once none moves for its wait limit', async () => {
    // Read, with 5 webhooks left that never move (a receiver down); each reading of the clock
    // is 31 s on, so the wait limit (60 s) passes within a few samples.
    const stuck = { ...jobView(true), deliveryDone: false, webhooksLeft: 5, eventsQueued: 2 };
    const server = await adminApi(() => stuck);
    servers.push(server);
    let at = Date.parse('2026-11-29T00:00:00.000Z');
    vi.spyOn(systemClock, 'now').mockImplementation(() => (at += 31_000));
    const { port } = server.address() as AddressInfo;
    const errors: string[] = [];
    const out: string[] = [];
    const code = await runCli(
      ['backfill', '--api', `http://127.0.0.1:${port}`, '--poll-interval', '100ms', '--json'],
      { out: (text) => out.push(text), err: (text) => errors.push(text) },
    );
    expect(code).toBe(1);
    expect(out.length).toBeGreaterThanOrEqual(3);
    expect(JSON.parse(out.at(-1)!)).toMatchObject({ done: true, deliveryDone: false });
    // Its 5 deliveries made and those of its 2 events queued, one each while nothing tells.
    expect(errors.join('\n')).toContain(
      'but has about 7 webhooks left to deliver, counting those of 2 queued events, and they have not gone down',
    );
    // It says how to follow the job again.
    expect(errors.join('\n')).toContain(`change-bridge backfill --follow ${JOB_ID}`);
  });
});

describe('backfill --follow', () => {
  it('follows a job started before (a command that gave up, or a bridge restarted) to its end, starting none', async () => {
    const methods: string[] = [];
    let gets = 0;
    const server = createServer((request, response) => {
      methods.push(`${request.method} ${request.url}`);
      const body = request.method === 'GET' ? jobView(++gets > 1) : jobView(false);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    const { port } = server.address() as AddressInfo;
    const out: string[] = [];
    const code = await runCli(
      [
        'backfill',
        '--follow',
        JOB_ID,
        '--api',
        `http://127.0.0.1:${port}`,
        '--poll-interval',
        '100ms',
      ],
      { out: (text) => out.push(text), err: () => undefined },
    );
    expect(code).toBe(0);
    expect(methods.every((m) => m.startsWith(`GET /backfill/${JOB_ID}`))).toBe(true);
    expect(out.at(-1)).toContain(`Backfill ${JOB_ID} done`);
  });

  it('is refused beside what starts a job', async () => {
    const errors: string[] = [];
    const code = await runCli(
      ['backfill', '--follow', JOB_ID, '--emit', '--api', 'http://127.0.0.1:9'],
      { out: () => undefined, err: (text) => errors.push(text) },
    );
    expect(code).toBe(2);
    expect(errors.join('\n')).toContain('--follow');
  });
});
