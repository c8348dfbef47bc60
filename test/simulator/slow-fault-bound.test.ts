import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIM_MAX_SLOW_MS } from '../../shared/simulator/faults.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator({ seed: 5 });
});
afterAll(async () => {
  await sim?.close();
});

async function setFaults(body: unknown): Promise<{ status: number; text: string }> {
  const answer = await fetch(`${sim.url}/_sim/faults`, {
    method: 'POST',
    body: JSON.stringify(body),
  });
  return { status: answer.status, text: await answer.text() };
}

describe('POST /_sim/faults with slowMs', () => {
  it('refuses a delay beyond its most with a 400 naming slowMs, and keeps the settings', async () => {
    const before = sim.controls.setFaults({});
    // Before, 2^31 ms was taken: past the most a timer holds, Node fired it after 1 ms (with a
    // TimeoutOverflowWarning), so the "slow" answer came at once.
    for (const slowMs of [2 ** 31, SIM_MAX_SLOW_MS + 1]) {
      const answer = await setFaults({ slowMs });
      expect(answer.status, String(slowMs)).toBe(400);
      expect(JSON.parse(JSON.parse(answer.text).Message)[0].path).toEqual(['slowMs']);
    }
    expect(sim.controls.setFaults({})).toEqual(before);
    expect(() => sim.controls.setFaults({ slowMs: 2 ** 31 })).toThrow(/slowMs/);
  });

  it('takes a delay up to its most', async () => {
    const answer = await setFaults({ slowMs: SIM_MAX_SLOW_MS });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text).slowMs).toBe(SIM_MAX_SLOW_MS);
    sim.controls.setFaults({ slowMs: 1500 });
  });
});
