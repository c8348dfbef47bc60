import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Customer } from '../../shared/connector/records/index.ts';
import {
  SIM_ROTATION_MIN_KEPT,
  SIM_ROTATION_RETENTION_MS,
} from '../../shared/simulator/activity-rotation.ts';
import type { EntitySet } from '../../shared/simulator/entity-set.ts';
import type { JournalEntry } from '../../shared/simulator/journal.ts';
import type { SimModel } from '../../shared/simulator/model.ts';
import { type Harness, interval, startHarness } from './harness.ts';

/** The sets the activity creates records in. */
const CREATED_SETS = [
  'customers',
  'accountNotes',
  'loyaltyMemberships',
  'resourceCategoryImageAssignments',
  'paymentRequests',
  'reservationGroups',
  'productCategories',
  'billingAutomations',
  'exports',
] as const satisfies readonly (keyof SimModel)[];
type CreatedSet = (typeof CREATED_SETS)[number];

/**
 * The accelerated run: 30 simulated minutes of 1,000 mutations each (some 17 a second, eight
 * times `npm start`'s rate), the clock moved a minute before each minute's mutations.
 */
const MINUTES = 30;
const STEPS_PER_MINUTE = 1000;

function storedCounts(model: SimModel): Record<CreatedSet, number> {
  return Object.fromEntries(
    CREATED_SETS.map((name) => [name, (model[name] as EntitySet<unknown>).storedCount]),
  ) as Record<CreatedSet, number>;
}

// Under `npm start` the activity created about a record every three mutations and deleted few
// for good: the records grew without bound (some 100 MB a day at 2 a second).
describe('activity rotation', () => {
  let h: Harness;
  let startMs = 0;
  const seeded = {} as Record<CreatedSet, number>;
  const afterRun: Record<CreatedSet, number>[] = [];
  const journal: JournalEntry[] = [];
  let lastRunFrom = 0;

  beforeAll(async () => {
    h = await startHarness({ journalMaxEntries: 1_000_000 });
    const model = h.sim.controls.model;
    Object.assign(seeded, storedCounts(model));
    startMs = h.clock.now();
    for (let minute = 0; minute < MINUTES; minute += 1) {
      lastRunFrom = model.journal.lastSeq;
      await h.clock.advance(60_000);
      await h.sim.controls.runActivity({ steps: STEPS_PER_MINUTE });
      afterRun.push(storedCounts(model));
    }
    journal.push(...model.journal.since());
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it('keeps every created set bounded through an accelerated run of 30,000 mutations', () => {
    const model = h.sim.controls.model;
    const createdCustomers = journal.filter(
      (e) => e.entityType === 'customer' && e.kind === 'created',
    ).length;
    // About 12 in 97 mutations create a customer: without the rotation all of them stay.
    expect(createdCustomers).toBeGreaterThan(3_000);
    const last = afterRun.at(-1)!;
    const halfway = afterRun[MINUTES / 2 - 1]!;
    for (const name of CREATED_SETS) {
      const quota = Math.max(SIM_ROTATION_MIN_KEPT, seeded[name]);
      // The seeded records, the quota of the activity's own, and those deleted within the
      // retention (at this accelerated rate, at most 3 a second of one type for 5 minutes).
      const bound = seeded[name] + quota + 3 * (SIM_ROTATION_RETENTION_MS / 1000);
      expect(last[name], name).toBeLessThanOrEqual(bound);
    }
    // Steady once past the quota and the retention: the second half of the run does not grow
    // the sets created in most (the others reach their quota later).
    for (const name of [
      'customers',
      'accountNotes',
      'loyaltyMemberships',
      'paymentRequests',
    ] as const)
      expect(last[name], name).toBeLessThanOrEqual(Math.ceil(halfway[name] * 1.1) + 20);
    expect(model.emailOwners.size).toBeLessThanOrEqual(model.customers.storedCount);
    expect(model.customers.insertedCount).toBe(seeded.customers + createdCustomers);
  });

  it('keeps creates, updates and deletes flowing to the end', () => {
    const lastRun = journal.filter((e) => e.seq > lastRunFrom);
    const kinds = (type: string) =>
      new Set(lastRun.filter((e) => e.entityType === type).map((e) => e.kind));
    for (const kind of ['created', 'updated', 'touched', 'soft-deleted', 'restored'])
      expect(kinds('customer'), kind).toContain(kind);
    for (const kind of ['created', 'updated', 'hard-deleted'])
      expect(kinds('paymentRequest'), kind).toContain(kind);
    expect(kinds('export')).toContain('created');
  });

  it('drops a soft-deleted record only after it was readable as deleted for the retention', () => {
    const model = h.sim.controls.model;
    const deletedAt = new Map<string, number>();
    const created = new Set<string>();
    for (const entry of journal) {
      if (entry.entityType !== 'customer') continue;
      if (entry.kind === 'created') created.add(entry.entityId);
      if (entry.kind === 'soft-deleted') deletedAt.set(entry.entityId, Date.parse(entry.time));
      if (entry.kind === 'restored') deletedAt.delete(entry.entityId);
    }
    const gone = [...created].filter((id) => model.customers.locate(id) === undefined);
    expect(gone.length).toBeGreaterThan(1_000);
    for (const id of gone) {
      const at = deletedAt.get(id);
      expect(at, id).toBeDefined();
      expect(h.clock.now() - at!, id).toBeGreaterThanOrEqual(SIM_ROTATION_RETENTION_MS);
    }
    // Seeded customers are never dropped.
    expect(model.customers.insertedCount - created.size).toBe(seeded.customers);
  });

  it('pages the rotated set newest first without gaps or duplicates, deleted records included', async () => {
    const model = h.sim.controls.model;
    const window = interval(startMs, h.clock.now() + 1);
    const ids: string[] = [];
    for await (const page of h.client.paginate('customers/getAll', {
      Limitation: { Count: 250 },
      Extent: { Customers: true },
      CreatedUtc: window,
      ActivityStates: ['Active', 'Deleted'],
    }))
      ids.push(...page.items.map((c: Customer) => c.Id));
    const expected = [...model.customers.all()]
      .filter((e) => e.createdMs >= startMs)
      .sort((a, b) => b.index - a.index)
      .map((e) => e.record.Id);
    expect(expected.length).toBeGreaterThan(SIM_ROTATION_MIN_KEPT);
    expect(ids).toEqual(expected);
  });
});
