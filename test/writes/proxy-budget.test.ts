import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { type InProcessBridge, startInProcessBridge } from '../support/in-process-bridge.ts';
import { waitFor } from '../support/wait-for.ts';

interface StreamsAnswer {
  streams: { lastSuccessAt: string | null }[];
  budgets?: { connectionId: string; requestsInWindow: number }[];
}

describe('the connector proxy and the pollers of one AccessToken', () => {
  let sim: RunningSimulator;
  let started: InProcessBridge;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 23, rateLimit: false });
    // One stream polled once a minute: the requests below are the only others in the window.
    started = await startInProcessBridge(sim, { POLL_ENTITIES: 'taxEnvironment' }, 60_000);
  }, 60_000);

  afterAll(async () => {
    await started?.close();
    await sim?.close();
  });

  async function streams(): Promise<StreamsAnswer> {
    return (await (await fetch(`${started.bridge.adminUrl}/streams`)).json()) as StreamsAnswer;
  }

  it('draw from one budget: every request the server counted is in the budget the pollers spend', async () => {
    await waitFor(
      async () => (await streams()).streams.every((s) => s.lastSuccessAt !== null) || undefined,
      30_000,
      'the first poll',
    );
    for (let i = 0; i < 5; i++) {
      const response = await fetch(
        `${started.bridge.adminUrl}/api/connector/v1/taxEnvironments/getAll`,
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
      );
      expect(response.status).toBe(200);
    }
    const counted = sim.controls.requestLog().length;
    expect(counted).toBeGreaterThanOrEqual(6);
    const budget = (await streams()).budgets?.find((b) => b.connectionId === 'local');
    // Before, the proxy spent a budget of its own in memory, unseen by the pollers' (and by
    // their shared ledger): together they could send the server more than 200 in 30 s.
    expect(budget?.requestsInWindow).toBe(counted);
  }, 60_000);
});
