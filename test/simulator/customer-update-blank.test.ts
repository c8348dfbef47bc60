import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope, type Harness, postRaw, startHarness } from './harness.ts';

// connector-api.md #2, rule 1: a field left out or blank does not clear the stored value.
describe('customers/update with blank fields', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  const BLANKS: [string, Record<string, unknown>][] = [
    ['Title', { Title: '' }],
    ['Sex', { Sex: ' ' }],
    ['BirthDate', { BirthDate: '' }],
    ['Email', { Email: '' }],
    ['Phone', { Phone: '  ' }],
    ['CompanyId', { CompanyId: '' }],
    ['Passport.Expiration', { Passport: { Expiration: '' } }],
  ];
  for (const [field, blank] of BLANKS) {
    it(`answers 200 for a blank ${field} and keeps what is stored`, async () => {
      const model = h.sim.controls.model;
      const customer = [...model.customers.all()].find(
        (entry) => entry.record.Email && entry.record.Phone && entry.record.Title,
      )!.record;
      const before = structuredClone(customer);
      const answer = await postRaw(h.sim, 'customers/update', {
        ...envelope(h.sim),
        CustomerId: customer.Id,
        ...blank,
      });
      expect(answer.status, answer.text).toBe(200);
      const after = model.customers.get(customer.Id)!.record;
      const { UpdatedUtc: _before, UpdaterProfileId: _by, ...kept } = before;
      expect(after).toMatchObject(kept);
    });
  }
});
