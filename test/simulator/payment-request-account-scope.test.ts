import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope, type Harness, postRaw, startHarness } from './harness.ts';

// A customer of another hotel (chain) is an identifier that names nothing for this token, as in
// customers/update: the client error (connector-api.md Errors), and nothing is created.
describe('paymentRequests/add for a customer outside the enterprise chain', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ chainPerEnterprise: true });
  });
  afterAll(async () => {
    await h.close();
  });

  const request = (accountId: string) => ({
    AccountId: accountId,
    Amount: { Currency: 'EUR', Value: 10 },
    Type: 'Payment',
    Reason: 'Fee',
    ExpirationUtc: '2027-01-01T00:00:00Z',
    Description: 'Deposit',
  });

  it('answers 400 naming PaymentRequests[0].AccountId and creates nothing', async () => {
    const model = h.sim.controls.model;
    const [own, other] = model.world.enterprises;
    const foreign = [...model.customers.all()].find((e) => e.chainId === other!.ChainId)!;
    const before = model.paymentRequests.storedCount;
    const answer = await postRaw(h.sim, 'paymentRequests/add', {
      ...envelope(h.sim),
      PaymentRequests: [request(foreign.record.Id)],
    });
    // Before, a 200 with a payment request of enterprise 1 for enterprise 2's guest.
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text).Message).toBe('PaymentRequests[0].AccountId: no such customer');
    expect(model.paymentRequests.storedCount).toBe(before);
    const mine = [...model.customers.all()].find((e) => e.chainId === own!.ChainId)!;
    const ok = await postRaw(h.sim, 'paymentRequests/add', {
      ...envelope(h.sim),
      PaymentRequests: [request(mine.record.Id)],
    });
    expect(ok.status).toBe(200);
  });
});
