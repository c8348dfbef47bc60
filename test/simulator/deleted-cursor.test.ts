import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope, type Harness, postRaw, startHarness } from './harness.ts';

describe('a Limitation.Cursor naming a record deleted for good', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('is a 400 naming Limitation.Cursor, like any identifier that names nothing', async () => {
    const model = h.sim.controls.model;
    const enterpriseId = model.world.enterprises[0]!.Id;
    const page = async (cursor: string) =>
      postRaw(h.sim, 'paymentRequests/getAll', {
        ...envelope(h.sim),
        Limitation: { Count: 10, Cursor: cursor },
        EnterpriseIds: [enterpriseId],
      });
    const [newest] = [...model.paymentRequests.all()].reverse();
    const id = newest!.record.Id;
    expect((await page(id)).status).toBe(200);
    model.hardDelete(model.paymentRequests, 'paymentRequest', id);
    const refused = await page(id);
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.text).Message).toContain('Limitation.Cursor');
  });

  it('still pages from a soft-deleted record: it exists, only its state changed', async () => {
    const model = h.sim.controls.model;
    const [newest] = [...model.customers.all()].reverse();
    const id = newest!.record.Id;
    model.softDelete(model.customers, 'customer', id, {
      IsActive: false,
      ActivityState: 'Deleted',
    });
    const answer = await postRaw(h.sim, 'customers/getAll', {
      ...envelope(h.sim),
      Limitation: { Count: 10, Cursor: id },
      Extent: { Customers: true },
      CreatedUtc: { StartUtc: '2026-01-01T00:00:00Z', EndUtc: '2026-03-31T00:00:00Z' },
    });
    expect(answer.status).toBe(200);
  });
});
