import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeAccountNote, makeCustomer } from '../../shared/simulator/factories-guests.ts';
import { type Harness, interval, startHarness } from './harness.ts';

const LAG_MS = 3000;

/** A database stamps a record when its transaction starts; it shows when it commits. */
describe('a simulator with a commit lag', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ commitLagMs: LAG_MS });
    await h.clock.advance(60_000);
  });
  afterAll(async () => {
    await h.close();
  });

  it('stamps a created and an updated record the lag before the mutation, where the time filters find it', async () => {
    const model = h.sim.controls.model;
    const now = h.clock.now();
    const customer = makeCustomer(model, now, 900_000);
    model.create(model.customers, 'customer', customer, {
      enterpriseId: null,
      chainId: model.world.chainId,
      createdMs: now,
      updatedMs: now,
    });
    const note = makeAccountNote(model, customer.Id);
    model.create(model.accountNotes, 'accountNote', note, {
      enterpriseId: null,
      chainId: model.world.chainId,
      createdMs: now,
      updatedMs: now,
    });
    const stamped = interval(now - LAG_MS, now - LAG_MS + 1);
    const customers = await h.client.customers.getAll({
      Limitation: { Count: 10 },
      Extent: { Customers: true },
      CreatedUtc: stamped,
      UpdatedUtc: stamped,
    });
    expect(customers.Customers.map((c) => [c.Id, c.CreatedUtc, c.UpdatedUtc])).toEqual([
      [customer.Id, new Date(now - LAG_MS).toISOString(), new Date(now - LAG_MS).toISOString()],
    ]);
    const notes = await h.client.accountNotes.getAll({
      Limitation: { Count: 10 },
      UpdatedUtc: stamped,
    });
    expect(notes.AccountNotes.map((n) => n.Id)).toEqual([note.Id]);

    await h.clock.advance(10_000);
    const later = h.clock.now();
    model.update(model.customers, 'customer', customer.Id, { Occupation: 'Pilot' });
    model.softDelete(model.accountNotes, 'accountNote', note.Id, { IsActive: false });
    const updated = await h.client.customers.getAll({
      Limitation: { Count: 10 },
      Extent: { Customers: true },
      UpdatedUtc: interval(later - LAG_MS, later - LAG_MS + 1),
    });
    expect(updated.Customers.map((c) => [c.Id, c.UpdatedUtc])).toEqual([
      [customer.Id, new Date(later - LAG_MS).toISOString()],
    ]);
    const deleted = await h.client.accountNotes.getAll({
      Limitation: { Count: 10 },
      UpdatedUtc: interval(later - LAG_MS, later - LAG_MS + 1),
      ActivityStates: ['Deleted'],
    });
    expect(deleted.AccountNotes.map((n) => n.Id)).toEqual([note.Id]);
  });
});
