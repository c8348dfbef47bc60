import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../shared/simulator/journal.ts';
import { type Harness, startHarness, TEST_START_MS } from './harness.ts';

type Visibility = { active: Set<string>; deleted: Set<string> };

const SOFT_DELETABLE = [
  'customer',
  'accountNote',
  'accountingCategory',
  'loyaltyMembership',
  'resourceCategoryImageAssignment',
  'resource',
];
const HARD_DELETABLE = [
  'billingAutomation',
  'paymentRequest',
  'reservationGroup',
  'productCategory',
];

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

describe('activity generator: 60 simulated seconds, journal against the API', () => {
  let h: Harness;
  let journal: JournalEntry[];

  beforeAll(async () => {
    h = await startHarness({ activity: { perSecond: 10 }, rateLimit: false });
    await h.clock.advance(60_000);
    h.sim.controls.stopActivity();
    journal = h.sim.controls.journal();
  });
  afterAll(async () => {
    await h.close();
  });

  /** Ids of one entity type the API returns, as active (default) and with deleted ones asked for. */
  async function visible(type: string, ids: string[]): Promise<Visibility> {
    const result: Visibility = { active: new Set(), deleted: new Set() };
    const add = (target: Set<string>, records: readonly { Id: string }[] | null | undefined) => {
      for (const record of records ?? []) target.add(record.Id);
    };
    const p = h.portfolio;
    for (const part of chunks(ids, 100)) {
      const Limitation = { Count: 1000 };
      for (const deleted of [false, true]) {
        const target = deleted ? result.deleted : result.active;
        const ActivityStates = deleted ? (['Deleted'] as const) : undefined;
        const states = ActivityStates ? { ActivityStates: [...ActivityStates] } : {};
        if (type === 'customer')
          add(
            target,
            (
              await p.customers.getAll({
                Limitation,
                Extent: { Customers: true },
                CustomerIds: part,
                ...states,
              })
            ).Customers,
          );
        if (type === 'accountNote')
          add(
            target,
            (await p.accountNotes.getAll({ Limitation, AccountNoteIds: part, ...states }))
              .AccountNotes,
          );
        if (type === 'accountingCategory')
          add(
            target,
            (
              await p.accountingCategories.getAll({
                Limitation,
                AccountingCategoryIds: part,
                ...states,
              })
            ).AccountingCategories,
          );
        if (type === 'loyaltyMembership')
          add(
            target,
            (
              await p.loyaltyMemberships.getAll({
                Limitation,
                LoyaltyMembershipIds: part,
                ...states,
              })
            ).LoyaltyMemberships,
          );
        if (type === 'resourceCategoryImageAssignment') {
          add(
            target,
            (
              await h.client.resourceCategoryImageAssignments.getAll({
                Limitation,
                ResourceCategoryImageAssignmentIds: part,
                ...states,
              })
            ).ResourceCategoryImageAssignments,
          );
        }
        if (type === 'resource') {
          const page = await p.resources.getAll({
            Limitation,
            ResourceIds: part,
            Extent: { Resources: true, Inactive: deleted },
          });
          add(target, deleted ? page.Resources?.filter((r) => !r.IsActive) : page.Resources);
        }
        if (deleted) continue;
        if (type === 'billingAutomation')
          add(
            target,
            (await p.billingAutomations.getAll({ Limitation, BillingAutomationIds: part }))
              .BillingAutomations,
          );
        if (type === 'paymentRequest')
          add(
            target,
            (await p.paymentRequests.getAll({ Limitation, PaymentRequestIds: part }))
              .PaymentRequests,
          );
        if (type === 'reservationGroup')
          add(
            target,
            (await p.reservationGroups.getAll({ Limitation, ReservationGroupIds: part }))
              .ReservationGroups,
          );
        if (type === 'productCategory')
          add(
            target,
            (await p.productCategories.getAll({ Limitation, ProductCategoryIds: part }))
              .ProductCategories,
          );
        if (type === 'export') add(target, (await p.exports.getAll({ ExportIds: part })).Exports);
      }
    }
    return result;
  }

  it('performs about 10 mutations per simulated second, of every kind, with times inside the run', () => {
    // Export lifecycle steps (Pending → Processing → …) are journaled besides the 600 mutations.
    const lifecycle = journal.filter((e) => e.entityType === 'export' && e.kind === 'updated');
    expect(lifecycle.length).toBeGreaterThan(0);
    expect(journal.length - lifecycle.length).toBe(600);
    const kinds = new Set(journal.map((e) => e.kind));
    for (const kind of ['created', 'updated', 'touched', 'soft-deleted', 'hard-deleted'])
      expect(kinds).toContain(kind);
    const times = journal.map((e) => Date.parse(e.time));
    expect(Math.min(...times)).toBeGreaterThan(TEST_START_MS);
    expect(Math.max(...times)).toBeLessThanOrEqual(TEST_START_MS + 60_000);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(
      journal.filter((e) => e.kind === 'touched').every((e) => e.changedFields.length === 0),
    ).toBe(true);
    expect(
      journal.filter((e) => e.kind === 'updated').every((e) => e.changedFields.length > 0),
    ).toBe(true);
  });

  it('returns what the journal says: created present, soft-deleted only as Deleted, hard-deleted absent', async () => {
    const last = new Map<string, JournalEntry>();
    for (const entry of journal) last.set(`${entry.entityType}|${entry.entityId}`, entry);
    const byType = new Map<string, JournalEntry[]>();
    for (const entry of last.values())
      byType.set(entry.entityType, [...(byType.get(entry.entityType) ?? []), entry]);
    const model = h.sim.controls.model;
    const firstEnterprise = model.world.enterprises[0]!.Id;
    let checked = 0;
    for (const [type, entries] of byType) {
      if (![...SOFT_DELETABLE, ...HARD_DELETABLE, 'export'].includes(type)) continue;
      // The AccessToken sees image assignments of its own enterprise only (no Portfolio support).
      const relevant =
        type === 'resourceCategoryImageAssignment'
          ? entries.filter(
              (e) =>
                model.resourceCategoryImageAssignments.locate(e.entityId)?.enterpriseId ===
                firstEnterprise,
            )
          : entries;
      const seen = await visible(
        type,
        relevant.map((e) => e.entityId),
      );
      for (const entry of relevant) {
        const label = `${type} ${entry.entityId} last ${entry.kind}`;
        if (entry.kind === 'hard-deleted') {
          expect(seen.active.has(entry.entityId), label).toBe(false);
        } else if (entry.kind === 'soft-deleted') {
          expect(seen.active.has(entry.entityId) && type !== 'resource', label).toBe(false);
          expect(seen.deleted.has(entry.entityId), label).toBe(true);
        } else {
          expect(seen.active.has(entry.entityId), label).toBe(true);
          if (SOFT_DELETABLE.includes(type))
            expect(seen.deleted.has(entry.entityId), label).toBe(false);
        }
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(200);
  });

  it('moves UpdatedUtc of a touched or updated customer to the journal time', async () => {
    const updates = journal.filter(
      (e) => e.entityType === 'customer' && (e.kind === 'updated' || e.kind === 'touched'),
    );
    const latest = new Map(updates.map((e) => [e.entityId, e.time]));
    const ids = [...latest.keys()].filter(
      (id) => h.sim.controls.model.customers.get(id)?.deletedMs === null,
    );
    const page = await h.portfolio.customers.getAll({
      Limitation: { Count: 1000 },
      Extent: { Customers: true },
      CustomerIds: ids,
    });
    expect(page.Customers.length).toBe(ids.length);
    for (const customer of page.Customers)
      expect(Date.parse(customer.UpdatedUtc)).toBe(Date.parse(latest.get(customer.Id)!));
  });
});
