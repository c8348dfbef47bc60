import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope, type Harness, postRaw, startHarness } from './harness.ts';

// connector-api.md, Authentication 3: ChainId and EnterpriseId are required with a Portfolio
// Access Token and ignored otherwise; a null one is as absent.
describe('a null ChainId or EnterpriseId', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });
  const bodies = (): [string, string, Record<string, unknown>][] => {
    const model = h.sim.controls.model;
    return [
      [
        'loyaltyPrograms/update',
        'ChainId',
        {
          LoyaltyProgramUpdates: [
            { LoyaltyProgramId: [...model.loyaltyPrograms.all()][0]!.record.Id },
          ],
        },
      ],
      ['paymentRequests/add', 'EnterpriseId', { PaymentRequests: [] }],
      ['vouchers/add', 'EnterpriseId', { VoucherParameters: [] }],
    ];
  };

  it('is ignored with an AccessToken (200)', async () => {
    for (const [operation, field, body] of bodies()) {
      const answer = await postRaw(h.sim, operation, {
        ...envelope(h.sim),
        ...body,
        [field]: null,
      });
      expect(answer.status, `${operation}: ${answer.text}`).toBe(200);
    }
  });

  it('is missing with the Portfolio Access Token (400 naming it)', async () => {
    for (const [operation, field, body] of bodies()) {
      const answer = await postRaw(h.sim, operation, {
        ...envelope(h.sim, h.sim.tokens.portfolioToken),
        ...body,
        [field]: null,
      });
      expect(answer.status, operation).toBe(400);
      expect(JSON.parse(answer.text).Message, operation).toBe(
        `${field}: required with a Portfolio Access Token`,
      );
    }
  });
});
