import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import {
  AccountingCategorySchema,
  AccountNoteSchema,
  BillingAutomationSchema,
  CustomerSchema,
  ExportSchema,
  LoyaltyMembershipSchema,
  LoyaltyProgramSchema,
  PaymentRequestSchema,
  ProductCategorySchema,
  ReservationGroupSchema,
  ResourceCategoryAssignmentSchema,
  ResourceCategoryImageAssignmentSchema,
  ResourceCategorySchema,
  ResourceFeatureAssignmentSchema,
  ResourceFeatureSchema,
  ResourceSchema,
  RoutingRuleSchema,
  TaxEnvironmentSchema,
  VoucherSchema,
} from '../../shared/connector/records/index.ts';
import type { EntitySet } from '../../shared/simulator/entity-set.ts';
import { generateDataset } from '../../shared/simulator/generate.ts';
import { TEST_START_MS } from './harness.ts';

function records<T>(set: EntitySet<T>): T[] {
  return [...set.all()].map((entry) => entry.record);
}

describe('generateDataset', () => {
  const model = generateDataset({ seed: 7, size: 'small', clock: new ManualClock(TEST_START_MS) });

  it('is deterministic for a seed and differs across seeds', () => {
    const again = generateDataset({
      seed: 7,
      size: 'small',
      clock: new ManualClock(TEST_START_MS),
    });
    const other = generateDataset({
      seed: 8,
      size: 'small',
      clock: new ManualClock(TEST_START_MS),
    });
    expect(records(again.customers)).toEqual(records(model.customers));
    expect(records(again.resources)).toEqual(records(model.resources));
    expect(records(other.customers)[0]).not.toEqual(records(model.customers)[0]);
  });

  it('takes a number of customers instead of the size’s, the rest of the size unchanged', () => {
    const clock = new ManualClock(TEST_START_MS);
    const more = generateDataset({ seed: 7, size: 'small', customers: 450, clock });
    expect(more.customers.size).toBe(450);
    expect(model.customers.size).toBe(300);
    expect(more.resources.size).toBe(model.resources.size);
  });

  it('produces records that all pass their schemas', () => {
    const checks: [unknown[], { parse(value: unknown): unknown }][] = [
      [records(model.customers), CustomerSchema],
      [records(model.resources), ResourceSchema],
      [records(model.resourceCategories), ResourceCategorySchema],
      [records(model.resourceCategoryAssignments), ResourceCategoryAssignmentSchema],
      [records(model.resourceCategoryImageAssignments), ResourceCategoryImageAssignmentSchema],
      [records(model.resourceFeatures), ResourceFeatureSchema],
      [records(model.resourceFeatureAssignments), ResourceFeatureAssignmentSchema],
      [records(model.accountNotes), AccountNoteSchema],
      [records(model.accountingCategories), AccountingCategorySchema],
      [records(model.billingAutomations), BillingAutomationSchema],
      [records(model.loyaltyPrograms), LoyaltyProgramSchema],
      [records(model.loyaltyMemberships), LoyaltyMembershipSchema],
      [records(model.paymentRequests), PaymentRequestSchema],
      [records(model.reservationGroups), ReservationGroupSchema],
      [records(model.productCategories), ProductCategorySchema],
      [records(model.routingRules), RoutingRuleSchema],
      [records(model.vouchers), VoucherSchema],
      [records(model.exports), ExportSchema],
      [records(model.taxEnvironments), TaxEnvironmentSchema],
    ];
    for (const [list, schema] of checks) {
      expect(list.length).toBeGreaterThan(0);
      for (const record of list) schema.parse(record);
    }
  });

  it('models a chain of several enterprises with rooms on floors and beds inside rooms', () => {
    expect(model.world.enterprises.length).toBeGreaterThanOrEqual(2);
    const resources = records(model.resources);
    const beds = resources.filter((r) => r.ParentResourceId);
    expect(beds.length).toBeGreaterThan(0);
    for (const bed of beds)
      expect(resources.some((room) => room.Id === bed.ParentResourceId)).toBe(true);
    expect(new Set(resources.map((r) => r.Data.Value.FloorNumber)).size).toBeGreaterThan(1);
  });

  it('has unicode names, documents, addresses and payment requests in every state', () => {
    const customers = records(model.customers);
    expect(customers.some((c) => /[^\x20-\x7e]/.test(`${c.FirstName}${c.LastName}`))).toBe(true);
    expect(customers.some((c) => c.Passport || c.IdentityCard)).toBe(true);
    expect(customers.some((c) => c.Address?.City)).toBe(true);
    const states = new Set(records(model.paymentRequests).map((p) => p.State));
    expect([...states].sort()).toEqual(['Canceled', 'Completed', 'Expired', 'Pending']);
    const exports = new Set(records(model.exports).map((e) => e.Status));
    expect([...exports].sort()).toEqual(['Expired', 'Pending', 'Processing', 'Success']);
  });

  it('keeps emails unique so customers/update can enforce rule 3', () => {
    const emails = records(model.customers).flatMap((c) => (c.Email ? [c.Email] : []));
    expect(new Set(emails).size).toBe(emails.length);
  });

  it('orders creation like CreatedUtc and journals nothing before start', () => {
    const created = records(model.customers).map((c) => Date.parse(c.CreatedUtc));
    expect(created).toEqual([...created].sort((a, b) => a - b));
    expect(model.journal.lastSeq).toBe(0);
  });
});
