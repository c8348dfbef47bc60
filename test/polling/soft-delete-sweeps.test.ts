import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityType } from '../../shared/changes/entity-types.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import {
  type PollHarness,
  pollUntilCaughtUp,
  startPollHarness,
  storedIds,
} from './poll-harness.ts';

let harness: PollHarness;
beforeAll(async () => {
  harness = await startPollHarness('small', 53, { deletesMoveUpdatedUtc: false });
});
afterAll(async () => {
  await harness?.close();
});

/** Soft-deletes `id` of `entityType` in the simulator, by the record's own delete flag. */
function softDelete(entityType: EntityType, id: string): void {
  const model = harness.sim.controls.model;
  switch (entityType) {
    case 'resource':
      model.softDelete(model.resources, 'resource', id, { IsActive: false });
      return;
    case 'accountNote':
      model.softDelete(model.accountNotes, 'accountNote', id, { IsActive: false });
      return;
    case 'accountingCategory':
      model.softDelete(model.accountingCategories, 'accountingCategory', id, { IsActive: false });
      return;
    case 'resourceCategoryImageAssignment':
      model.softDelete(
        model.resourceCategoryImageAssignments,
        'resourceCategoryImageAssignment',
        id,
        { IsActive: false },
      );
      return;
    case 'loyaltyMembership':
      model.softDelete(model.loyaltyMemberships, 'loyaltyMembership', id, {});
      return;
    default:
      throw new Error(`no soft delete for ${entityType}`);
  }
}

/** Brings `id` of `entityType` back in the simulator, clearing the flag {@link softDelete} set. */
function restore(entityType: EntityType, id: string): void {
  const model = harness.sim.controls.model;
  switch (entityType) {
    case 'resource':
      model.restore(model.resources, 'resource', id, { IsActive: true });
      return;
    case 'accountNote':
      model.restore(model.accountNotes, 'accountNote', id, { IsActive: true });
      return;
    case 'accountingCategory':
      model.restore(model.accountingCategories, 'accountingCategory', id, { IsActive: true });
      return;
    case 'resourceCategoryImageAssignment':
      model.restore(model.resourceCategoryImageAssignments, 'resourceCategoryImageAssignment', id, {
        IsActive: true,
      });
      return;
    case 'loyaltyMembership':
      model.restore(model.loyaltyMemberships, 'loyaltyMembership', id, {});
      return;
    default:
      throw new Error(`no restore for ${entityType}`);
  }
}

/**
 * connector-api.md does not say that a soft delete moves `UpdatedUtc` (nor shows any state
 * transition). The simulator playing the reading in which it does not, a record deleted by its
 * flag (or, for loyalty memberships, deleted without one) is in no `UpdatedUtc` window; the
 * stream's reconciliation sweep, which reads every stored id, finds it.
 */
describe.each([
  'resource',
  'accountNote',
  'accountingCategory',
  'resourceCategoryImageAssignment',
  'loyaltyMembership',
] as const)('a %s deleted without its UpdatedUtc moving', (entityType) => {
  it('is published as deleted by the next sweep, once', async () => {
    const { definition, deps } = harness.streamOf(entityType);
    await pollUntilCaughtUp(definition, deps);
    const [id] = await storedIds(deps, definition.streamId);
    await harness.clock.advance(definition.intervalMs);
    softDelete(entityType, id!);
    harness.publisher.events.length = 0;

    await harness.clock.advance(61 * 60_000);
    await pollStream(definition, deps, 't');
    expect(harness.publisher.events.map((e) => `${e.type} ${e.subject}`)).toEqual([
      `${entityType}.deleted ${id}`,
    ]);

    harness.publisher.events.length = 0;
    await harness.clock.advance(61 * 60_000);
    await pollStream(definition, deps, 't');
    expect(harness.publisher.events).toEqual([]);
  });
});

/**
 * The same reading for a restore: a record brought back without `UpdatedUtc` moving is in no
 * window either. Its tombstone is kept (35 days), and the sweep asks for the tombstoned ids
 * beside the live ones, so the record returned present again is published as created.
 */
describe.each([
  'resource',
  'accountNote',
  'accountingCategory',
  'resourceCategoryImageAssignment',
  'loyaltyMembership',
] as const)('a %s restored without its UpdatedUtc moving', (entityType) => {
  it('is published as created by the next sweep, once', async () => {
    const { definition, deps } = harness.streamOf(entityType);
    await pollUntilCaughtUp(definition, deps);
    const id = (await storedIds(deps, definition.streamId)).at(-1)!;
    softDelete(entityType, id);
    await harness.clock.advance(61 * 60_000);
    await pollStream(definition, deps, 't');
    harness.publisher.events.length = 0;

    restore(entityType, id);
    await harness.clock.advance(61 * 60_000);
    await pollStream(definition, deps, 't');
    expect(harness.publisher.events.map((e) => `${e.type} ${e.subject}`)).toEqual([
      `${entityType}.created ${id}`,
    ]);

    harness.publisher.events.length = 0;
    await harness.clock.advance(61 * 60_000);
    await pollStream(definition, deps, 't');
    expect(harness.publisher.events).toEqual([]);
  });
});
