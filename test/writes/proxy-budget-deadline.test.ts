import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type AdminServer, startAdminServer } from '../../shared/admin/node-server.ts';
import { createWriteThrough, PROXY_ANSWER_MS } from '../../shared/writes/write-through.ts';
import { type AdminHarness, createAdminHarness } from '../admin/support/harness.ts';
import { driveClock } from '../support/drive-clock.ts';
import { collectingPublisher } from './support/simulator-writes.ts';

const SERVICE = 'a0000000-0000-4000-8000-0000000000e2';

let connector: Server | undefined;
let admin: AdminServer | undefined;
let harness: AdminHarness | undefined;
afterEach(async () => {
  await admin?.close();
  await harness?.deps.writeThrough?.close();
  await harness?.close();
  connector?.closeAllConnections();
  await new Promise((resolve) => connector?.close(resolve) ?? resolve(undefined));
  connector = undefined;
  admin = undefined;
  harness = undefined;
});

describe('the connector proxy while the token budget has no slot before the answer is due', () => {
  it('answers 429 unsent by the time the answer is due, not when the budget gives a slot', async () => {
    // The connector pauses the token for 60 s at its first request, then answers.
    const received: string[] = [];
    connector = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        received.push(request.url ?? '');
        if (received.length === 1) {
          response
            .writeHead(429, { 'content-type': 'application/json', 'retry-after': '60' })
            .end('{"Message":"Too many requests.","RequestId":"r-1"}');
        } else response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => connector!.listen(0, '127.0.0.1', resolve));
    harness = createAdminHarness();
    const clock = harness.clock;
    harness.deps.writeThrough = createWriteThrough({
      connectionId: 'main',
      connector: {
        baseUrl: `http://127.0.0.1:${(connector.address() as AddressInfo).port}`,
        clientToken: 'ct',
        // A budget of its own (budgets are per AccessToken in the process).
        accessToken: `at-${randomUUID()}`,
        client: 'test',
      },
      scope: {},
      publisher: collectingPublisher(),
      state: harness.state,
      streams: harness.streams,
      clock,
    });
    admin = await startAdminServer({ port: 0, deps: harness.deps });
    const clear = () =>
      fetch(`${admin!.url}/api/connector/v1/restrictions/clear`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ServiceId: SERVICE, Data: [{ Type: 'Stay' }] }),
        signal: AbortSignal.timeout(10_000),
      });
    const first = await driveClock(clock, clear(), 1_000);
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('60');
    await first.arrayBuffer();

    const askedAt = clock.now();
    const second = await driveClock(clock, clear(), 1_000);
    const answeredAfter = clock.now() - askedAt;
    expect(second.status).toBe(429);
    expect(await second.json()).toEqual({ error: expect.stringMatching(/not sent/) });
    expect(received).toHaveLength(1);
    // Before: answered 60 s after the call, when the pause ended (the CLI stops listening at
    // 30 s, API Gateway at 29 s), the slot the budget then gave spent on nothing.
    expect(answeredAfter).toBeLessThanOrEqual(PROXY_ANSWER_MS);
  });
});
