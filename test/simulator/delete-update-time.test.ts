import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Customer } from '../../shared/connector/records/index.ts';
import { type Harness, interval, startHarness } from './harness.ts';

/**
 * Whether a soft delete moves UpdatedUtc is left open by the contract (customers/getAll has a
 * DeletedUtc filter of its own); the simulator can play either reading.
 */
describe.each([
  { moves: true, label: 'moves' },
  { moves: false, label: 'keeps' },
])('a soft delete that $label UpdatedUtc', ({ moves }) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ deletesMoveUpdatedUtc: moves });
  });
  afterAll(async () => {
    await h.close();
  });

  it('shows the deleted customer in an UpdatedUtc window of its delete only when it moves, and always by DeletedUtc', async () => {
    const model = h.sim.controls.model;
    await h.clock.advance(60_000);
    const [entry] = [...model.customers.all()].reverse();
    const id = entry!.record.Id;
    const before = entry!.record.UpdatedUtc;
    const at = h.clock.now();
    model.softDelete(model.customers, 'customer', id, {
      IsActive: false,
      ActivityState: 'Deleted',
    });
    const ask = (filter: Record<string, unknown>) =>
      h.client.customers.getAll({
        Limitation: { Count: 10 },
        Extent: { Customers: true },
        ActivityStates: ['Active', 'Deleted'],
        ...filter,
      });
    const byUpdate = await ask({ UpdatedUtc: interval(at, at + 1) });
    expect(byUpdate.Customers.map((c: Customer) => c.Id)).toEqual(moves ? [id] : []);
    const byDeletion = await ask({ DeletedUtc: interval(at, at + 1) });
    expect(byDeletion.Customers.map((c: Customer) => [c.Id, c.IsActive])).toEqual([[id, false]]);
    expect(byDeletion.Customers[0]!.UpdatedUtc).toBe(moves ? new Date(at).toISOString() : before);
    model.restore(model.customers, 'customer', id, { IsActive: true, ActivityState: 'Active' });
    const restored = await ask({ UpdatedUtc: interval(at, at + 1) });
    expect(restored.Customers.map((c: Customer) => c.Id)).toEqual(moves ? [id] : []);
  });
});
