import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BackfillJobView } from '../../shared/admin/backfill-view.ts';
import { ADMIN_DELETE_TIMEOUT_MS } from '../../shared/cli/admin/api-client.ts';
import { runCli } from '../../shared/cli/main.ts';

const DONE: BackfillJobView = {
  id: 'bf_1',
  startedAt: '2026-12-01T00:00:00.000Z',
  emit: true,
  fraction: 1,
  done: true,
  deliveryDone: true,
  streams: [
    {
      streamId: 'local:customer',
      entityType: 'customer',
      fraction: 1,
      done: true,
      watermark: null,
      parked: false,
      lastError: null,
      endedBy: null,
      recordsRead: 1,
      eventsPublished: 1,
      webhooksDelivered: 1,
      webhooksDeadLettered: 0,
      webhooksLeft: 0,
      eventsQueued: 0,
    },
  ],
  recordsRead: 1,
  eventsPublished: 1,
  webhooksDelivered: 1,
  webhooksDeadLettered: 0,
  webhooksLeft: 0,
  eventsQueued: 0,
  elapsedSeconds: 1,
  finishedAt: '2026-12-01T00:00:01.000Z',
  etaSeconds: 0,
};

let server: Server | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

describe('backfill starting streams that had not completed a first sync', () => {
  it('waits for POST /backfill as long as a reset, since it deletes their snapshots as one does', async () => {
    const paths: string[] = [];
    server = createServer((request, response) => {
      paths.push(`${request.method} ${request.url}`);
      response.writeHead(request.method === 'POST' ? 202 : 200, {
        'content-type': 'application/json',
      });
      response.end(JSON.stringify(DONE));
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const timeouts = vi.spyOn(AbortSignal, 'timeout');
    const code = await runCli(['backfill', '--api', `http://127.0.0.1:${port}`, '--json'], {
      out: () => undefined,
      err: () => undefined,
    });
    expect(code).toBe(0);
    expect(paths).toEqual(['POST /backfill']);
    // A stream half way through its first sync of 100,000 customers holds tens of thousands of
    // snapshots, which the reset deletes before the job is answered: more than 30 s locally.
    expect(timeouts.mock.calls[0]?.[0]).toBe(ADMIN_DELETE_TIMEOUT_MS);
  });
});
