import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope, type Harness, postRaw, startHarness } from './harness.ts';

/** Only an extent set to true returns its entities (connector-api.md #1 and #3). */
describe('an Extent left out or null returns nothing of its kind', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('customers/getAll without Extent.Customers true returns no customers and a null Cursor', async () => {
    const [customer] = [...h.sim.controls.model.customers.all()].reverse();
    const ask = async (Extent: Record<string, unknown>) => {
      const answer = await postRaw(h.sim, 'customers/getAll', {
        ...envelope(h.sim),
        Limitation: { Count: 10 },
        Extent,
        CustomerIds: [customer!.record.Id],
      });
      expect(answer.status).toBe(200);
      return JSON.parse(answer.text) as { Customers: unknown[]; Cursor: string | null };
    };
    expect(await ask({})).toMatchObject({ Customers: [], Cursor: null });
    expect(await ask({ Customers: null })).toMatchObject({ Customers: [], Cursor: null });
    expect(await ask({ Customers: true })).toMatchObject({ Cursor: customer!.record.Id });
  });

  it('resources/getAll without Extent.Resources true returns no resources and a null Cursor', async () => {
    const ask = async (extent: Record<string, unknown>) => {
      const answer = await postRaw(h.sim, 'resources/getAll', {
        ...envelope(h.sim),
        Limitation: { Count: 10 },
        ...extent,
      });
      expect(answer.status).toBe(200);
      return JSON.parse(answer.text) as { Resources: unknown[] | null; Cursor: string | null };
    };
    expect(await ask({})).toMatchObject({ Resources: null, Cursor: null });
    expect(await ask({ Extent: { Inactive: true } })).toMatchObject({
      Resources: null,
      Cursor: null,
    });
    const asked = await ask({ Extent: { Resources: true } });
    expect(asked.Resources).toHaveLength(10);
    expect(asked.Cursor).not.toBeNull();
  });
});
