import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './harness.ts';

/**
 * With --chain-per-enterprise every hotel is a chain of its own, with its own guests: a hotel's
 * payment requests and reservations are for its own customers, not another hotel's (whose
 * AccessToken would not even find them).
 */
describe('payment requests and reservations of independent hotels', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ chainPerEnterprise: true });
  });
  afterAll(async () => {
    await h.close();
  });

  function foreignGuests() {
    const model = h.sim.controls.model;
    const chainOfCustomer = (id: string) => model.customers.locate(id)?.chainId;
    const requests = [...model.paymentRequests.all()].filter(
      (e) => chainOfCustomer(e.record.AccountId) !== model.chainOf(e.record.EnterpriseId),
    );
    const reservations = [...model.reservations.values()].filter(
      (r) => chainOfCustomer(r.AccountId) !== model.chainOf(r.EnterpriseId),
    );
    return { requests: requests.length, reservations: reservations.length };
  }

  it('are for a customer of the hotel, in the dataset and after activity', async () => {
    expect(h.sim.controls.model.paymentRequests.size).toBeGreaterThan(0);
    expect(h.sim.controls.model.reservations.size).toBeGreaterThan(0);
    // Before, 69 of the 100 generated payment requests were for another hotel's guest.
    expect(foreignGuests()).toEqual({ requests: 0, reservations: 0 });
    await h.sim.controls.runActivity({ steps: 1000 });
    expect(foreignGuests()).toEqual({ requests: 0, reservations: 0 });
  });
});
