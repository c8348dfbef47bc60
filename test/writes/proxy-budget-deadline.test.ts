import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PROXY_ANSWER_MS } from '../../shared/writes/write-through.ts';
import { driveClock } from '../support/drive-clock.ts';
import { postToProxy, useConnectorStandIn } from './support/connector-stand-in.ts';

const SERVICE = 'a0000000-0000-4000-8000-0000000000e2';

const standIn = useConnectorStandIn();

describe('the connector proxy while the token budget has no slot before the answer is due', () => {
  it('answers 429 unsent by the time the answer is due, not when the budget gives a slot', async () => {
    // The connector pauses the token for 60 s at its first request, then answers.
    const received: string[] = [];
    const { url, harness } = await standIn.start(
      (request, response) => {
        request.resume();
        request.on('end', () => {
          received.push(request.url ?? '');
          if (received.length === 1) {
            response
              .writeHead(429, { 'content-type': 'application/json', 'retry-after': '60' })
              .end('{"Message":"Too many requests.","RequestId":"r-1"}');
          } else response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        });
      },
      // The client's budget on, and a budget of its own (budgets are per AccessToken in the process).
      { connector: { accessToken: `at-${randomUUID()}`, rateLimit: undefined } },
    );
    const clock = harness.clock;
    const clear = () =>
      postToProxy(url, 'restrictions/clear', { ServiceId: SERVICE, Data: [{ Type: 'Stay' }] });
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

  it('answers 429 unsent at once, with the Retry-After of the pause, when the pause outlasts the time the answer is due', async () => {
    let received = 0;
    const { url, harness } = await standIn.start(
      (request, response) => {
        request.resume();
        request.on('end', () => {
          received += 1;
          response
            .writeHead(429, { 'content-type': 'application/json', 'retry-after': '60' })
            .end('{"Message":"Too many requests.","RequestId":"r-1"}');
        });
      },
      { connector: { accessToken: `at-${randomUUID()}`, rateLimit: undefined } },
    );
    const clock = harness.clock;
    const clear = () =>
      postToProxy(url, 'restrictions/clear', { ServiceId: SERVICE, Data: [{ Type: 'Stay' }] });
    const first = await driveClock(clock, clear(), 1_000);
    expect(first.status).toBe(429);
    await first.arrayBuffer();
    const pausedAt = clock.now();

    const second = await driveClock(clock, clear(), 1_000);
    const answeredAfter = clock.now() - pausedAt;
    expect(second.status).toBe(429);
    expect(await second.json()).toEqual({ error: expect.stringMatching(/not sent/) });
    expect(received).toBe(1);
    // Before: answered 20 s later (the latest start of a request), without a Retry-After, so
    // the caller knew neither that nothing could be sent before the pause ended nor when.
    expect(answeredAfter).toBeLessThan(1_000);
    const retryAfter = Number(second.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(58);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });
});
