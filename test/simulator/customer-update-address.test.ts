import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './harness.ts';

// connector-api.md, Address: Line1, Line2, City, PostalCode, CountryCode and
// CountrySubdivisionCode are nullable strings, Latitude and Longitude nullable numbers.
describe('customers/update address', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });
  const customerWithout = () =>
    [...h.sim.controls.model.customers.all()]
      .map((entry) => entry.record)
      .filter((record) => !record.Address);

  it('creates an address with every field of the contract, null where not given', async () => {
    const customer = customerWithout()[0]!;
    const updated = await h.client.customers.update({
      CustomerId: customer.Id,
      Address: { City: 'Brno', CountryCode: 'CZ' },
    });
    expect(updated.Address).toEqual({
      Id: expect.any(String),
      Line1: null,
      Line2: null,
      City: 'Brno',
      PostalCode: null,
      CountryCode: 'CZ',
      CountrySubdivisionCode: null,
      Latitude: null,
      Longitude: null,
    });
    expect(updated.AddressId).toBe(updated.Address!.Id);
  });

  it('has the same fields as a seeded address', async () => {
    const model = h.sim.controls.model;
    const seeded = [...model.customers.all()].find((entry) => entry.record.Address)!.record
      .Address!;
    const customer = customerWithout()[1]!;
    const updated = await h.client.customers.update({
      CustomerId: customer.Id,
      Address: { Line1: 'Masarykova 1' },
    });
    expect(Object.keys(updated.Address!).sort()).toEqual(Object.keys(seeded).sort());
  });

  it('keeps the stored values of an existing address that the update leaves out', async () => {
    const model = h.sim.controls.model;
    const customer = [...model.customers.all()].find((entry) => entry.record.Address)!.record;
    const before = customer.Address!;
    const updated = await h.client.customers.update({
      CustomerId: customer.Id,
      Address: { Line2: 'Apt 7' },
    });
    expect(updated.Address).toEqual({ ...before, Line2: 'Apt 7' });
    expect(updated.AddressId).toBe(before.Id);
  });
});
