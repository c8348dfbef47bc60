import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIM_MAX_RETRY_AFTER_SECONDS } from '../../shared/simulator/faults.ts';
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

async function injected429(): Promise<Response> {
  sim.controls.setFaults({ script: ['rate-limit'] });
  return fetch(`${sim.url}/api/connector/v1/taxEnvironments/getAll`, {
    method: 'POST',
    body: '{}',
  });
}

describe('POST /_sim/faults with retryAfterSeconds', () => {
  it('refuses a huge, negative, fractional or non-numeric value with a 400 naming the field, and keeps the settings', async () => {
    const before = sim.controls.setFaults({});
    // Before, any safe integer was taken and sent as the header of every injected 429.
    for (const retryAfterSeconds of [
      Number.MAX_SAFE_INTEGER,
      SIM_MAX_RETRY_AFTER_SECONDS + 1,
      1e20,
      -1,
      1.5,
      '5',
      'soon',
      true,
    ]) {
      const answer = await setFaults({ retryAfterSeconds });
      expect(answer.status, JSON.stringify(retryAfterSeconds)).toBe(400);
      expect(JSON.parse(JSON.parse(answer.text).Message)[0].path).toEqual(['retryAfterSeconds']);
    }
    expect(sim.controls.setFaults({})).toEqual(before);
    expect(() => sim.controls.setFaults({ retryAfterSeconds: Number.MAX_SAFE_INTEGER })).toThrow(
      /retryAfterSeconds/,
    );
    const answer = await injected429();
    expect(answer.status).toBe(429);
    expect(answer.headers.get('retry-after')).toBe(String(before.retryAfterSeconds));
  });

  it('takes 0 to its most, and null for a 429 without the header', async () => {
    for (const retryAfterSeconds of [0, SIM_MAX_RETRY_AFTER_SECONDS]) {
      const set = await setFaults({ retryAfterSeconds });
      expect(set.status).toBe(200);
      const answer = await injected429();
      expect(answer.status).toBe(429);
      expect(answer.headers.get('retry-after')).toBe(String(retryAfterSeconds));
    }
    expect((await setFaults({ retryAfterSeconds: null })).status).toBe(200);
    const answer = await injected429();
    expect(answer.status).toBe(429);
    expect(answer.headers.get('retry-after')).toBeNull();
    sim.controls.setFaults({ retryAfterSeconds: 1 });
  });
});
