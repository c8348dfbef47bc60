import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityType } from '../../shared/changes/entity-types.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import type { SimModel } from '../../shared/simulator/model.ts';
import {
  type PollHarness,
  pollUntilCaughtUp,
  startPollHarness,
  storedIds,
} from './poll-harness.ts';

let harness: PollHarness;
beforeAll(async () => {
  // Deletes leave `UpdatedUtc` where it was: no deletion is found by a window alone.
  harness = await startPollHarness('small', 71, { deletesMoveUpdatedUtc: false });
});
afterAll(async () => {
  await harness?.close();
});

/** Longer than every sweep and deletion-read period (payment requests and soft deletes: 60 min). */
const PAST_EVERY_SWEEP_MS = 61 * 60_000;

type Deletion = (model: SimModel, id: string) => boolean;

/**
 * How the simulator deletes one record of each entity type, as the service does: by the
 * record's own flag where it has one, with no trace left where it has none (loyalty
 * memberships: deleted, with no flag on the record). Product prices are never deleted (a price
 * leaves the horizon silently), so they have no row. Exports come first: the dataset's expire
 * within hours of simulated time (an Expired export is no longer tracked), and every row moves
 * the shared clock on by two hours.
 */
const DELETIONS: ReadonlyArray<[EntityType, string, Deletion]> = [
  ['export', 'tracked ids', (m, id) => m.hardDelete(m.exports, 'export', id)],
  [
    'customer',
    'deletion read on DeletedUtc',
    (m, id) =>
      m.softDelete(m.customers, 'customer', id, { IsActive: false, ActivityState: 'Deleted' }),
  ],
  [
    'resource',
    'soft-delete sweep',
    (m, id) => m.softDelete(m.resources, 'resource', id, { IsActive: false }),
  ],
  [
    'accountNote',
    'soft-delete sweep',
    (m, id) => m.softDelete(m.accountNotes, 'accountNote', id, { IsActive: false }),
  ],
  [
    'accountingCategory',
    'soft-delete sweep',
    (m, id) => m.softDelete(m.accountingCategories, 'accountingCategory', id, { IsActive: false }),
  ],
  [
    'resourceCategoryImageAssignment',
    'soft-delete sweep',
    (m, id) =>
      m.softDelete(m.resourceCategoryImageAssignments, 'resourceCategoryImageAssignment', id, {
        IsActive: false,
      }),
  ],
  [
    'loyaltyMembership',
    'sweep of the active ones',
    (m, id) => m.softDelete(m.loyaltyMemberships, 'loyaltyMembership', id, {}),
  ],
  [
    'reservationGroup',
    'mark-and-sweep',
    (m, id) => m.hardDelete(m.reservationGroups, 'reservationGroup', id),
  ],
  [
    'productCategory',
    'mark-and-sweep',
    (m, id) => m.hardDelete(m.productCategories, 'productCategory', id),
  ],
  [
    'paymentRequest',
    'mark-and-sweep',
    (m, id) => m.hardDelete(m.paymentRequests, 'paymentRequest', id),
  ],
  [
    'billingAutomation',
    'snapshot diff',
    (m, id) => m.hardDelete(m.billingAutomations, 'billingAutomation', id),
  ],
  [
    'taxEnvironment',
    'snapshot diff',
    (m, id) => m.hardDelete(m.taxEnvironments, 'taxEnvironment', id),
  ],
];

describe.each(DELETIONS)('a %s deleted (%s)', (entityType, _strategy, deleteRecord) => {
  it('is published as deleted, once, and nothing else of it', async () => {
    // Taken before the delete: a tracked export stays configured after it is gone.
    const { definition, deps } = harness.streamOf(entityType);
    await pollUntilCaughtUp(definition, deps);
    const ids = await storedIds(deps, definition.streamId);
    // An Expired export is no longer tracked: one still moving through its lifecycle is.
    const id = ids.find((candidate) => {
      if (entityType !== 'export') return true;
      return harness.sim.controls.model.exports.get(candidate)?.record.Status !== 'Expired';
    });
    expect(id).toBeDefined();
    expect(deleteRecord(harness.sim.controls.model, id!)).toBe(true);
    harness.publisher.events.length = 0;

    await harness.clock.advance(PAST_EVERY_SWEEP_MS);
    await pollStream(definition, deps, 't');
    expect(harness.publisher.events.filter((e) => e.subject === id).map((e) => e.type)).toEqual([
      `${entityType}.deleted`,
    ]);

    harness.publisher.events.length = 0;
    await harness.clock.advance(PAST_EVERY_SWEEP_MS);
    await pollStream(definition, deps, 't');
    expect(harness.publisher.events.filter((e) => e.subject === id)).toEqual([]);
  });
});
