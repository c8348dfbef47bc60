import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATION_NAMES } from '../../shared/connector/operations.ts';
import { type Harness, interval, startHarness, TEST_START_MS } from './harness.ts';

const DAY_MS = 86_400_000;

describe('conformance: the client passes against the simulator for all 20 operations', () => {
  let h: Harness;
  const called = new Set<string>();
  const recent = () => interval(TEST_START_MS - 80 * DAY_MS, TEST_START_MS + 1);

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
    // Every operation of connector-api.md is exercised by this file.
    expect([...called].sort()).toEqual([...OPERATION_NAMES].sort());
  });
  const track = (name: string) => called.add(name);

  it('customers/getAll returns customers, documents and addresses per Extent', async () => {
    track('customers/getAll');
    const page = await h.client.customers.getAll({
      Limitation: { Count: 50 },
      Extent: { Customers: true, Documents: true, Addresses: true },
      UpdatedUtc: recent(),
    });
    expect(page.Customers.length).toBeGreaterThan(0);
    expect(page.Cursor).toBe(page.Customers.at(-1)?.Id);
    expect(page.Documents?.every((d) => page.Customers.some((c) => c.Id === d.CustomerId))).toBe(
      true,
    );
    const withoutAddresses = await h.client.customers.getAll({
      Limitation: { Count: 50 },
      Extent: { Customers: true },
      UpdatedUtc: recent(),
    });
    expect(withoutAddresses.Customers.every((c) => c.Address === undefined)).toBe(true);
  });

  it('customers/update keeps blank fields, replaces Notes and answers 403 for a taken email', async () => {
    track('customers/update');
    const [first, second] = [...h.sim.controls.model.customers.all()]
      .filter((e) => e.record.Email)
      .map((e) => e.record);
    const updated = await h.client.customers.update({
      CustomerId: first!.Id,
      FirstName: '',
      Notes: 'VIP',
      Phone: '+420 777 123 456',
    });
    expect(updated.FirstName).toBe(first!.FirstName);
    expect(updated.Notes).toBe('VIP');
    expect(updated.Phone).toBe('+420 777 123 456');
    const cleared = await h.client.customers.update({ CustomerId: first!.Id, Notes: null });
    expect(cleared.Notes).toBeNull();
    await expect(
      h.client.customers.update({ CustomerId: first!.Id, Email: second!.Email! }),
    ).rejects.toMatchObject({
      category: 'validation',
      status: 403,
    });
    const moved = await h.client.customers.update({
      CustomerId: first!.Id,
      Email: 'new.address@example.com',
    });
    expect(moved.Email).toBe('new.address@example.com');
    const journal = h.sim.controls.journal().filter((e) => e.entityId === first!.Id);
    expect(journal.map((e) => e.kind)).toEqual(['updated', 'updated', 'updated']);
  });

  it('customers/getAll with a Portfolio Access Token carries ChainIds', async () => {
    const page = await h.portfolio.customers.getAll({
      Limitation: { Count: 5 },
      Extent: { Customers: true },
      UpdatedUtc: recent(),
    });
    expect(page.Customers).toHaveLength(5);
  });

  it('resources/getAll returns rooms and the extents associated with them only', async () => {
    track('resources/getAll');
    const page = await h.client.resources.getAll({
      Limitation: { Count: 10 },
      Extent: {
        Resources: true,
        ResourceCategories: true,
        ResourceCategoryAssignments: true,
        ResourceCategoryImageAssignments: true,
        ResourceFeatures: true,
        ResourceFeatureAssignments: true,
      },
    });
    const ids = new Set(page.Resources?.map((r) => r.Id));
    expect(ids.size).toBe(10);
    expect(page.ResourceCategoryAssignments?.every((a) => ids.has(a.ResourceId))).toBe(true);
    const categories = new Set(page.ResourceCategoryAssignments?.map((a) => a.CategoryId));
    expect(page.ResourceCategories?.every((c) => categories.has(c.Id))).toBe(true);
    expect(page.ResourceFeatureAssignments?.every((a) => ids.has(a.ResourceId))).toBe(true);
    const enterprise = h.sim.controls.model.world.enterprises[0]!.Id;
    expect(page.Resources?.every((r) => r.EnterpriseId === enterprise)).toBe(true);
    const all = await h.portfolio.resources.getAll({
      Limitation: { Count: 1000 },
      Extent: { Resources: true },
    });
    expect(new Set(all.Resources?.map((r) => r.EnterpriseId)).size).toBe(
      h.sim.controls.model.world.enterprises.length,
    );
  });

  it('accountNotes/getAll, accountingCategories/getAll and billingAutomations/getAll page their records', async () => {
    track('accountNotes/getAll');
    track('accountingCategories/getAll');
    track('billingAutomations/getAll');
    const notes = await h.client.accountNotes.getAll({
      Limitation: { Count: 20 },
      UpdatedUtc: recent(),
    });
    expect(notes.AccountNotes.every((n) => n.IsActive)).toBe(true);
    const categories = await h.client.accountingCategories.getAll({ Limitation: { Count: 100 } });
    expect(categories.AccountingCategories.length).toBeGreaterThan(5);
    const automations = await h.client.billingAutomations.getAll({ Limitation: { Count: 100 } });
    expect(automations.BillingAutomations?.length).toBeGreaterThan(0);
    expect(automations.Cursor).toBe(automations.BillingAutomations?.at(-1)?.Id);
  });

  it('loyaltyMemberships/getAll and loyaltyPrograms/update', async () => {
    track('loyaltyMemberships/getAll');
    track('loyaltyPrograms/update');
    const memberships = await h.client.loyaltyMemberships.getAll({
      Limitation: { Count: 30 },
      MembershipStates: ['Enrolled'],
    });
    expect(memberships.LoyaltyMemberships.every((m) => m.State === 'Enrolled')).toBe(true);
    const program = [...h.sim.controls.model.loyaltyPrograms.all()][0]!.record;
    const updated = await h.client.loyaltyPrograms.update({
      LoyaltyProgramUpdates: [
        { LoyaltyProgramId: program.Id, Name: { Value: 'Sunrise Rewards Plus' } },
      ],
    });
    expect(updated.LoyaltyPrograms[0]).toMatchObject({
      Id: program.Id,
      Name: 'Sunrise Rewards Plus',
      Code: program.Code,
    });
  });

  it('paymentRequests/add creates Pending requests that paymentRequests/getAll returns', async () => {
    track('paymentRequests/add');
    track('paymentRequests/getAll');
    const customer = [...h.sim.controls.model.customers.all()][0]!.record;
    const added = await h.client.paymentRequests.add({
      PaymentRequests: [
        {
          AccountId: customer.Id,
          Amount: { Currency: 'CZK', Value: 1500 },
          Type: 'Payment',
          Reason: 'Deposit',
          ExpirationUtc: '2026-04-01T00:00:00Z',
          Description: 'Deposit',
        },
      ],
    });
    const created = added.PaymentRequests[0]!;
    expect(created).toMatchObject({ State: 'Pending', AccountId: customer.Id });
    expect(created.Amount.GrossValue).toBe(1500);
    const found = await h.client.paymentRequests.getAll({
      Limitation: { Count: 10 },
      PaymentRequestIds: [created.Id],
    });
    expect(found.PaymentRequests.map((p) => p.Id)).toEqual([created.Id]);
    const pending = await h.client.paymentRequests.getAll({
      Limitation: { Count: 100 },
      States: ['Completed'],
    });
    expect(pending.PaymentRequests.every((p) => p.State === 'Completed')).toBe(true);
  });

  it('reservationGroups/getAll, productCategories/getAll and resourceCategoryImageAssignments/getAll', async () => {
    track('reservationGroups/getAll');
    track('productCategories/getAll');
    track('resourceCategoryImageAssignments/getAll');
    const groups = await h.client.reservationGroups.getAll({
      Limitation: { Count: 10 },
      UpdatedUtc: recent(),
    });
    expect(groups.ReservationGroups.length).toBeGreaterThan(0);
    const categories = await h.client.productCategories.getAll({ Limitation: { Count: 100 } });
    expect(categories.ProductCategories.length).toBeGreaterThan(0);
    const images = await h.client.resourceCategoryImageAssignments.getAll({
      Limitation: { Count: 100 },
    });
    expect(images.ResourceCategoryImageAssignments.length).toBeGreaterThan(0);
  });

  it('products/getPricing returns one price per local day and enforces rules 1 and 2', async () => {
    track('products/getPricing');
    const world = h.sim.controls.model.world;
    const product = world.products.find((p) => p.EnterpriseId === world.enterprises[0]!.Id)!;
    // Europe/Prague: local midnight is 23:00 UTC in winter, 22:00 UTC in summer (DST from 29 March 2026).
    const pricing = await h.client.products.getPricing({
      ProductId: product.Id,
      FirstTimeUnitStartUtc: '2026-03-27T23:00:00Z',
      LastTimeUnitStartUtc: '2026-03-30T22:00:00Z',
    });
    expect(pricing.TimeUnitStartsUtc).toEqual([
      '2026-03-27T23:00:00.000Z',
      '2026-03-28T23:00:00.000Z',
      '2026-03-29T22:00:00.000Z',
      '2026-03-30T22:00:00.000Z',
    ]);
    expect(pricing.BaseAmountPrices).toHaveLength(4);
    expect(pricing.AgeCategoryPrices.every((a) => a.Prices.length === 4)).toBe(true);
    await expect(
      h.client.products.getPricing({
        ProductId: product.Id,
        FirstTimeUnitStartUtc: '2026-03-28T00:00:00Z',
        LastTimeUnitStartUtc: '2026-03-30T22:00:00Z',
      }),
    ).rejects.toMatchObject({ category: 'client', status: 400 });
    await expect(
      h.client.products.getPricing({
        ProductId: product.Id,
        FirstTimeUnitStartUtc: '2026-03-27T23:00:00Z',
        LastTimeUnitStartUtc: '2026-07-10T22:00:00Z',
      }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringContaining('100 days') });
  });

  it('routingRules/update changes values and keeps SelectedStayItems only for that RouteType', async () => {
    track('routingRules/update');
    const rule = [...h.sim.controls.model.routingRules.all()].find(
      (e) => e.enterpriseId === h.sim.controls.model.world.enterprises[0]!.Id,
    )!.record;
    const selected = await h.client.routingRules.update({
      RoutingRuleUpdates: [
        {
          RoutingRuleId: rule.Id,
          RouteType: { Value: 'SelectedStayItems' },
          SelectedStayItems: { Nights: { Value: true }, CityTax: { Value: false } },
        },
      ],
    });
    expect(selected.RoutingRules[0]).toMatchObject({
      RouteType: 'SelectedStayItems',
      SelectedStayItems: { Nights: true, CityTax: false },
    });
    const all = await h.client.routingRules.update({
      RoutingRuleUpdates: [{ RoutingRuleId: rule.Id, RouteType: { Value: 'AllStayItems' } }],
    });
    expect(all.RoutingRules[0]!.SelectedStayItems).toBeUndefined();
  });

  it('reservations/getAllItems converts amounts to the asked currency and filters states', async () => {
    track('reservations/getAllItems');
    const reservation = [...h.sim.controls.model.reservations.values()].find(
      (r) => r.EnterpriseId === h.sim.controls.model.world.enterprises[0]!.Id,
    )!;
    const result = await h.client.reservations.getAllItems({
      ReservationIds: [reservation.ReservationId],
      Currency: 'EUR',
      AccountingStates: ['Open', 'Closed', 'Inactive'],
    });
    const items = result.Reservations[0]!.OrderItems;
    expect(items.length).toBe(reservation.orderItems.length);
    expect(items.every((i) => i.Amount.Currency === 'EUR')).toBe(true);
  });

  it('vouchers/add creates vouchers and rejects a public voucher with a company (403)', async () => {
    track('vouchers/add');
    const service = h.sim.controls.model.world.enterprises[0]!.services[0]!;
    const added = await h.client.vouchers.add({
      VoucherParameters: [{ ServiceId: service.Id, Name: 'WINTER15', Type: 'Public' }],
    });
    expect(added.Vouchers[0]).toMatchObject({
      Name: 'WINTER15',
      ServiceId: service.Id,
      Type: 'Public',
    });
    expect(h.sim.controls.model.vouchers.get(added.Vouchers[0]!.Id)).toBeDefined();
    await expect(
      h.client.vouchers.add({
        VoucherParameters: [
          {
            ServiceId: service.Id,
            Name: 'X',
            Type: 'Public',
            CompanyId: h.sim.controls.model.world.companyIds[0]!,
          },
        ],
      }),
    ).rejects.toMatchObject({ category: 'validation' });
  });

  it('vouchers/add accepts an empty AssignedRateIds, a bound the contract does not give', async () => {
    track('vouchers/add');
    const service = h.sim.controls.model.world.enterprises[0]!.services[0]!;
    const added = await h.client.vouchers.add({
      VoucherParameters: [
        { ServiceId: service.Id, Name: 'NO-RATES', Type: 'Public', AssignedRateIds: [] },
      ],
    });
    expect(added.Vouchers).toHaveLength(1);
    expect(added.Vouchers[0]).toMatchObject({ Name: 'NO-RATES', ServiceId: service.Id });
  });

  it('restrictions/clear splices API restrictions and leaves user ones alone', async () => {
    track('restrictions/clear');
    const model = h.sim.controls.model;
    const service = model.world.enterprises[0]!.services[0]!;
    const before = model.restrictions.filter((r) => r.ServiceId === service.Id);
    const api = before.find((r) => r.origin === 'Api')!;
    const start = Date.parse(api.StartUtc);
    const days = {
      Monday: true,
      Tuesday: true,
      Wednesday: true,
      Thursday: true,
      Friday: true,
      Saturday: true,
      Sunday: true,
    };
    const result = await h.client.restrictions.clear({
      ServiceId: service.Id,
      Data: [
        {
          Type: 'Stay',
          ExactRateId: service.rateIds[0]!,
          Days: days,
          StartUtc: new Date(start + 2 * DAY_MS).toISOString(),
          EndUtc: new Date(start + 4 * DAY_MS).toISOString(),
        },
      ],
    });
    expect(result).toEqual({});
    const after = model.restrictions.filter((r) => r.ServiceId === service.Id);
    const apiPieces = after.filter((r) => r.origin === 'Api').map((r) => [r.StartUtc, r.EndUtc]);
    expect(apiPieces).toEqual([
      [api.StartUtc, new Date(start + 2 * DAY_MS).toISOString()],
      [new Date(start + 4 * DAY_MS).toISOString(), api.EndUtc],
    ]);
    expect(after.filter((r) => r.origin === 'User')).toEqual(
      before.filter((r) => r.origin === 'User'),
    );
  });

  it('exports/getAll and taxEnvironments/getAll', async () => {
    track('exports/getAll');
    track('taxEnvironments/getAll');
    const ids = [...h.sim.controls.model.exports.all()].map((e) => e.record.Id);
    const exports = await h.client.exports.getAll({ ExportIds: ids });
    expect(exports.Exports.map((e) => e.Status).sort()).toEqual([
      'Expired',
      'Pending',
      'Processing',
      'Success',
    ]);
    const tax = await h.client.taxEnvironments.getAll({});
    expect(tax.TaxEnvironments.map((t) => t.Code)).toContain('CZ');
  });
});
