import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope, type Harness, postRaw, startHarness } from './harness.ts';

// connector-api.md Errors: a client error is a "malformed request or invalid resource identifier".
describe('vouchers/add CompanyId', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });
  const UNKNOWN_COMPANY = '3f6c2a1e-8b7d-4e5f-9a0b-1c2d3e4f5a6b';
  const add = (item: Record<string, unknown>) =>
    postRaw(h.sim, 'vouchers/add', {
      ...envelope(h.sim),
      VoucherParameters: [
        {
          ServiceId: h.sim.controls.model.world.enterprises[0]!.services[0]!.Id,
          Name: 'X',
          ...item,
        },
      ],
    });

  it('answers 400 naming the field for a company that does not exist, adding nothing', async () => {
    const before = h.sim.controls.model.vouchers.storedCount;
    for (const type of ['PartnerCompany', 'TravelAgency']) {
      const answer = await add({ Type: type, CompanyId: UNKNOWN_COMPANY });
      expect(answer.status, type).toBe(400);
      expect(JSON.parse(answer.text).Message, type).toBe(
        'VoucherParameters[0].CompanyId: no such company',
      );
    }
    expect(h.sim.controls.model.vouchers.storedCount).toBe(before);
  });

  it('adds a company voucher for a company that exists', async () => {
    const companyId = h.sim.controls.model.world.companyIds[0]!;
    const answer = await add({ Type: 'PartnerCompany', CompanyId: companyId });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text).Vouchers[0]).toMatchObject({ CompanyId: companyId });
  });
});
