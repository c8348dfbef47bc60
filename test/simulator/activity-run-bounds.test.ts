import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SIM_MAX_ACTIVITY_PER_SECOND,
  SIM_MAX_ACTIVITY_RUN_MS,
  SIM_MAX_ACTIVITY_RUN_STEPS,
} from '../../shared/simulator/activity.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator({ seed: 3 });
});
afterAll(async () => {
  await sim?.close();
});

async function runActivity(body: unknown): Promise<{ status: number; text: string }> {
  const answer = await fetch(`${sim.url}/_sim/activity`, {
    method: 'POST',
    body: JSON.stringify(body),
  });
  return { status: answer.status, text: await answer.text() };
}

// Each mutation is made at once on the simulator's one thread (about 10,000 a second): an
// unbounded run kept it from answering anything, for hours, and grew its journal without end.
describe('POST /_sim/activity', () => {
  it('refuses a run beyond its bounds with a 400 naming the field, and mutates nothing', async () => {
    const before = sim.controls.model.journal.lastSeq;
    for (const [body, field] of [
      [{ steps: SIM_MAX_ACTIVITY_RUN_STEPS + 1 }, 'steps'],
      [{ durationMs: SIM_MAX_ACTIVITY_RUN_MS + 1 }, 'durationMs'],
      [{ durationMs: 1_000, perSecond: SIM_MAX_ACTIVITY_PER_SECOND + 1 }, 'perSecond'],
      // Within each bound, but more mutations than a run makes: a minute at 1000/s is the most.
      [{ durationMs: 120_000, perSecond: SIM_MAX_ACTIVITY_PER_SECOND }, 'durationMs'],
    ] as const) {
      const answer = await runActivity(body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(JSON.parse(JSON.parse(answer.text).Message)[0].path).toEqual([field]);
    }
    expect(sim.controls.model.journal.lastSeq).toBe(before);
  }, 60_000);

  it('makes the mutations of a run within its bounds', async () => {
    const before = sim.controls.model.journal.lastSeq;
    const answer = await runActivity({ durationMs: 2_000, perSecond: SIM_MAX_ACTIVITY_PER_SECOND });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text).lastSeq).toBeGreaterThanOrEqual(before + 2_000);
    expect((await runActivity({ steps: 10 })).status).toBe(200);
  });

  it('takes the same bounds from the controls of a simulator in process', async () => {
    await expect(
      sim.controls.runActivity({ durationMs: SIM_MAX_ACTIVITY_RUN_MS + 1, perSecond: 1 }),
    ).rejects.toThrow(/durationMs/);
  });
});
