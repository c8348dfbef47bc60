import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { createWriteThrough } from '../../shared/writes/write-through.ts';
import { type AdminHarness, createAdminHarness } from '../admin/support/harness.ts';
import { driveClock } from '../support/drive-clock.ts';
import { collectingPublisher, simulatorConnector } from './support/simulator-writes.ts';

/** The Retry-After every injected 429 carries, in seconds. */
const RETRY_AFTER_SECONDS = 7;

describe('the connector proxy and 429 answers', () => {
  let sim: RunningSimulator;
  let harness: AdminHarness;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 43, rateLimit: false });
    harness = createAdminHarness();
    harness.deps.writeThrough = createWriteThrough({
      connectionId: 'main',
      connector: simulatorConnector(sim),
      scope: {},
      publisher: collectingPublisher(),
      state: harness.state,
      streams: harness.streams,
      clock: harness.clock,
    });
  }, 30_000);

  afterAll(async () => {
    await harness?.deps.writeThrough?.close();
    await harness?.close();
    await sim?.close();
  });

  it('passes the Retry-After of the 429 it gives up on to the caller', async () => {
    sim.controls.setFaults({
      script: Array.from({ length: 20 }, () => 'rate-limit' as const),
      retryAfterSeconds: RETRY_AFTER_SECONDS,
    });
    const service = sim.controls.model.world.enterprises[0]!.services[0]!;
    const response = await driveClock(
      harness.clock,
      harness.call('POST', '/api/connector/v1/restrictions/clear', {
        body: { ServiceId: service.Id, Data: [{ Type: 'Stay' }] },
      }),
      1_000,
    );
    sim.controls.setFaults({ script: [] });
    expect(response.status).toBe(429);
    expect(response.body).toMatchObject({ Message: 'Too many requests.' });
    // Before, the caller got the 429 without it, and could only guess when to come back.
    expect(response.headers?.['retry-after']).toBe(String(RETRY_AFTER_SECONDS));
  });

  it('answers a 429 whose wait would keep the caller past its own timeout, instead of waiting', async () => {
    // The CLI gives up after 30 s and API Gateway after 29 s, while the bridge would still send.
    sim.controls.setFaults({ script: ['rate-limit', 'rate-limit'], retryAfterSeconds: 20 });
    const service = sim.controls.model.world.enterprises[0]!.services[0]!;
    const startedAt = harness.clock.now();
    const response = await driveClock(
      harness.clock,
      harness.call('POST', '/api/connector/v1/restrictions/clear', {
        body: { ServiceId: service.Id, Data: [{ Type: 'Stay' }] },
      }),
      1_000,
    );
    const waitedMs = harness.clock.now() - startedAt;
    sim.controls.setFaults({ script: [] });
    // Before, it waited 20 s twice and sent the clear 40 s after the caller asked.
    expect(waitedMs).toBeLessThan(29_000);
    expect(response.status).toBe(429);
    expect(response.headers?.['retry-after']).toBe('20');
  });
});
