import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope, type Harness, postRaw, startHarness } from './harness.ts';

/**
 * design.md facts: 200 requests per AccessToken in any 30-second window. A request the service
 * answers with an error (408, 409, 500) or whose connection drops still arrived: it counts.
 */
describe('the server budget counts every arrival of an accepted AccessToken', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    h.sim.controls.setRateLimit({ requests: 5, windowMs: 30_000 });
  });
  afterAll(async () => {
    h.sim.controls.setFaults({ script: [], rate: 0 });
    h.sim.controls.setRateLimit({ requests: 200, windowMs: 30_000 });
    await h.close();
  });

  const call = () => postRaw(h.sim, 'taxEnvironments/getAll', envelope(h.sim));

  it('counts requests answered by an injected timeout, conflict, internal error or drop', async () => {
    h.sim.controls.setFaults({ script: ['timeout', 'conflict', 'internal'] });
    expect([(await call()).status, (await call()).status, (await call()).status]).toEqual([
      408, 409, 500,
    ]);
    h.sim.controls.setFaults({ script: ['drop'] });
    await expect(call()).rejects.toThrow();
    expect((await call()).status).toBe(200);
    const sixth = await call();
    expect(sixth.status).toBe(429);
    expect(sixth.headers.get('retry-after')).toBe('30');
    expect(sixth.headers.get('request-id')).toBe(JSON.parse(sixth.text).RequestId);
  });

  it('answers 429, not the injected fault, to a request over the budget', async () => {
    h.sim.controls.setFaults({ script: ['internal'] });
    expect((await call()).status).toBe(429);
    await h.clock.advance(30_000);
    expect((await call()).status).toBe(200);
  });
});
