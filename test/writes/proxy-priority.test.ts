import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { createConnectorCaller } from '../../shared/connector/client.ts';
import type { ConnectorConfig } from '../../shared/connector/connector-config.ts';
import { CONNECTOR_REQUESTS_PER_WINDOW } from '../../shared/connector/rate-limit.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { MemoryStateStore } from '../../shared/state/memory-state-store.ts';
import { createWriteThrough } from '../../shared/writes/write-through.ts';
import { driveClock } from '../support/drive-clock.ts';

/** More writes than the token's budget holds in one window. */
const WRITES = 250;

describe('the connector proxy beside a live poll of the same token', () => {
  let sim: RunningSimulator;

  beforeAll(async () => {
    // The server counts nothing here: the order it sees requests in is what the test reads.
    sim = await startSimulator({ seed: 47, rateLimit: false });
  }, 30_000);

  afterAll(async () => {
    await sim?.close();
  });

  it('lets the live poll go before a burst of proxied writes', async () => {
    // A clock of its own: a fresh budget of the token (200 per 30 s, as the bridge keeps it).
    const clock = new ManualClock(Date.UTC(2026, 10, 1));
    const connector: ConnectorConfig = {
      baseUrl: sim.url,
      clientToken: sim.tokens.clientToken,
      accessToken: sim.tokens.accessToken,
      client: 'test',
    };
    const writeThrough = createWriteThrough({
      connectionId: 'main',
      connector,
      scope: {},
      publisher: { publish: async () => ({ published: 0, thinned: 0, failures: [] }) },
      state: new MemoryStateStore(),
      streams: [],
      clock,
    });
    const poller = createConnectorCaller(connector, { clock });
    const service = sim.controls.model.world.enterprises[0]!.services[0]!;
    try {
      const writes = Array.from({ length: WRITES }, () =>
        writeThrough.forward('restrictions/clear', { ServiceId: service.Id, Data: [] }),
      );
      const poll = poller.send(
        'taxEnvironments/getAll',
        {},
        { budget: { priority: 'live', streamId: 'main:taxEnvironment', intervalMs: 1_000 } },
      );
      // Writes that get no slot before their deadline are answered unsent (PROXY_ANSWER_MS).
      const [settled] = await driveClock(
        clock,
        Promise.all([Promise.allSettled(writes), poll]),
        500,
      );
      const refused = settled.flatMap((result) =>
        result.status === 'rejected' ? [String(result.reason)] : [],
      );
      for (const reason of refused) expect(reason).toMatch(/not sent/);
      const arrived = sim.controls.requestLog().map((entry) => entry.operation);
      expect(arrived.filter((operation) => operation === 'restrictions/clear')).toHaveLength(
        WRITES - refused.length,
      );
      // Before, the writes claimed the budget as live polls do and went first, in order: the
      // poll waited for the next window, behind every write asked for before it.
      expect(arrived.indexOf('taxEnvironments/getAll')).toBeLessThan(CONNECTOR_REQUESTS_PER_WINDOW);
    } finally {
      await writeThrough.close();
      await poller.close();
    }
  }, 60_000);
});
