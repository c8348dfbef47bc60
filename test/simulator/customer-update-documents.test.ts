import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './harness.ts';

// connector-api.md, Identity document: Number, Expiration, Issuance, IssuingCountryCode,
// IssuingCity and IdentityDocumentSupportNumber are nullable fields of every document.
describe('customers/update identity documents', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('creates a document with every nullable field of the contract, null where not given', async () => {
    const customer = [...h.sim.controls.model.customers.all()]
      .map((entry) => entry.record)
      .find((record) => !record.Passport)!;
    const updated = await h.client.customers.update({
      CustomerId: customer.Id,
      Passport: { Number: 'P1234567', Expiration: '2031-05-01' },
    });
    expect(updated.Passport).toEqual({
      Id: expect.any(String),
      CustomerId: customer.Id,
      Type: 'Passport',
      Number: 'P1234567',
      Expiration: '2031-05-01',
      Issuance: null,
      IssuingCountryCode: null,
      IssuingCity: null,
      IdentityDocumentSupportNumber: null,
    });
  });

  it('has the same fields as a seeded document', async () => {
    const model = h.sim.controls.model;
    const seeded = [...model.customers.all()].find((entry) => entry.record.Visa)!.record.Visa!;
    const customer = [...model.customers.all()].find((entry) => !entry.record.Visa)!.record;
    const updated = await h.client.customers.update({
      CustomerId: customer.Id,
      Visa: { IssuingCity: 'Brno' },
    });
    expect(Object.keys(updated.Visa!).sort()).toEqual(Object.keys(seeded).sort());
  });

  it('keeps the stored values of an existing document that the update leaves out', async () => {
    const model = h.sim.controls.model;
    const customer = [...model.customers.all()].find((entry) => entry.record.IdentityCard)!.record;
    const before = customer.IdentityCard!;
    const updated = await h.client.customers.update({
      CustomerId: customer.Id,
      IdentityCard: { Number: 'D7654321' },
    });
    expect(updated.IdentityCard).toEqual({ ...before, Number: 'D7654321' });
  });
});
