import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope, type Harness, postRaw, startHarness } from './harness.ts';

/**
 * customers/update rule 3: an email changes only if no other customer profile "in the hotel"
 * has it. Independent hotels (--chain-per-enterprise) hold their own guests: one hotel's guest
 * does not keep an email from another hotel's.
 */
describe('customers/update email uniqueness is per hotel (chain)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ chainPerEnterprise: true });
  });
  afterAll(async () => {
    await h.close();
  });

  const update = (token: string, customerId: string, email: string) =>
    postRaw(h.sim, 'customers/update', {
      ...envelope(h.sim, token),
      CustomerId: customerId,
      Email: email,
    });

  it('takes an email another hotel guest has, and still refuses one of its own hotel', async () => {
    const model = h.sim.controls.model;
    const [first, second] = h.sim.enterpriseTokens;
    const chainOf = (enterpriseId: string) => model.chainOf(enterpriseId);
    const guestsOf = (enterpriseId: string) =>
      [...model.customers.all()]
        .filter((e) => e.chainId === chainOf(enterpriseId) && e.record.Email)
        .map((e) => e.record);
    const [mine, neighbour] = guestsOf(first!.enterpriseId);
    const [theirs] = guestsOf(second!.enterpriseId);
    // Before, a 403 "another customer profile already uses this email".
    const taken = await update(first!.accessToken, mine!.Id, theirs!.Email!);
    expect(taken.status).toBe(200);
    expect(model.customers.get(mine!.Id)!.record.Email).toBe(theirs!.Email);
    // Within the hotel the rule holds, for the email just taken too.
    const refused = await update(first!.accessToken, neighbour!.Id, theirs!.Email!);
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.text).Message).toContain('Email');
    // And the other hotel guest keeps theirs and can still be given it back.
    const back = await update(second!.accessToken, theirs!.Id, theirs!.Email!);
    expect(back.status).toBe(200);
  });
});
