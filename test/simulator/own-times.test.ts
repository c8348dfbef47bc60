import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { TEST_START_MS } from './harness.ts';

/** A clock that moves a millisecond every time it is read: reads a step apart differ. */
class TickingClock extends ManualClock {
  override now(): number {
    const now = super.now();
    void this.advance(1);
    return now;
  }
}

const plusOneMs = (at: string) => new Date(Date.parse(at) + 1).toISOString();

async function getAll(sim: RunningSimulator, path: string, body: Record<string, unknown>) {
  const response = await fetch(`${sim.url}/api/connector/v1/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      ClientToken: sim.tokens.clientToken,
      AccessToken: sim.tokens.accessToken,
      Client: 'test 1.0',
      Limitation: { Count: 1000 },
      ...body,
    }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, { Id: string }[]>;
}

describe('simulator: a record created by activity is found by its own times', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({
      seed: 7,
      size: 'small',
      clock: new TickingClock(TEST_START_MS),
      rateLimit: false,
    });
    await sim.controls.runActivity({ steps: 400 });
  });
  afterAll(async () => {
    await sim.close();
  });

  it('customers: the UpdatedUtc and CreatedUtc intervals [own time, +1 ms) return each created customer', async () => {
    const created = sim.controls
      .journal()
      .filter((entry) => entry.entityType === 'customer' && entry.kind === 'created');
    expect(created.length).toBeGreaterThan(5);
    for (const entry of created) {
      const [found] = (
        await getAll(sim, 'customers/getAll', {
          CustomerIds: [entry.entityId],
          Extent: { Customers: true },
        })
      ).Customers as {
        Id: string;
        CreatedUtc: string;
        UpdatedUtc: string;
      }[];
      if (!found) continue;
      for (const filter of ['CreatedUtc', 'UpdatedUtc'] as const) {
        const at = found[filter];
        const window = { StartUtc: at, EndUtc: plusOneMs(at) };
        const page = await getAll(sim, 'customers/getAll', {
          [filter]: window,
          Extent: { Customers: true },
        });
        expect(
          page.Customers?.map((c) => c.Id),
          `${filter} ${at}`,
        ).toContain(found.Id);
      }
    }
  });
});
