import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityType } from '../../shared/changes/entity-types.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import type { EntitySet } from '../../shared/simulator/entity-set.ts';
import type { SimModel } from '../../shared/simulator/model.ts';
import {
  type PollHarness,
  pollUntilCaughtUp,
  startPollHarness,
  storedIds,
} from './poll-harness.ts';

let harness: PollHarness;
beforeAll(async () => {
  harness = await startPollHarness('small', 101);
});
afterAll(async () => {
  await harness?.close();
});

/** Longer than every sweep period (payment requests: 60 min). */
const PAST_EVERY_SWEEP_MS = 61 * 60_000;

/** One of the simulator's record sets, whatever its records' shape. */
type RecordSet = EntitySet<Record<string, unknown>>;

/** The simulator's records of each entity type whose deletes leave no trace. */
const SETS: ReadonlyArray<[EntityType, string, (model: SimModel) => RecordSet]> = [
  ['export', 'tracked ids', (m) => m.exports as unknown as RecordSet],
  ['billingAutomation', 'snapshot diff', (m) => m.billingAutomations as unknown as RecordSet],
  ['taxEnvironment', 'snapshot diff', (m) => m.taxEnvironments as unknown as RecordSet],
  ['reservationGroup', 'mark-and-sweep', (m) => m.reservationGroups as unknown as RecordSet],
  ['productCategory', 'mark-and-sweep', (m) => m.productCategories as unknown as RecordSet],
  ['paymentRequest', 'mark-and-sweep', (m) => m.paymentRequests as unknown as RecordSet],
];

/**
 * A record the connector stops returning is published as deleted; should the connector return
 * it again, as it was and with its update time where it was (so no `UpdatedUtc` window shows
 * it), that is news too: the strategy that told the delete tells the return, as created. The
 * simulator plays the return by dropping the record and storing it anew with its own times.
 */
describe.each(SETS)(
  'a %s deleted, then returned as it was (%s)',
  (entityType, _strategy, setOf) => {
    it('is published as deleted, then as created', async () => {
      // Taken before the delete: a tracked export stays configured after it is gone.
      const { definition, deps } = harness.streamOf(entityType);
      await pollUntilCaughtUp(definition, deps);
      const model = harness.sim.controls.model;
      const set = setOf(model);
      const id = (await storedIds(deps, definition.streamId)).find(
        (candidate) =>
          entityType !== 'export' || model.exports.get(candidate)?.record.Status !== 'Expired',
      )!;
      const entry = set.get(id)!;
      const record = { ...entry.record };
      const createdMs = model.exportTimeline.get(id);
      harness.publisher.events.length = 0;

      model.hardDelete(set, entityType as never, id);
      await harness.clock.advance(PAST_EVERY_SWEEP_MS);
      await pollStream(definition, deps, 't');
      expect(harness.publisher.events.filter((e) => e.subject === id).map((e) => e.type)).toEqual([
        `${entityType}.deleted`,
      ]);

      harness.publisher.events.length = 0;
      model.purge(set, id);
      set.insert(record, {
        enterpriseId: entry.enterpriseId,
        chainId: entry.chainId,
        createdMs: entry.createdMs,
        updatedMs: entry.updatedMs,
      });
      if (createdMs !== undefined) model.exportTimeline.set(id, createdMs);
      await harness.clock.advance(PAST_EVERY_SWEEP_MS);
      await pollStream(definition, deps, 't');
      expect(harness.publisher.events.filter((e) => e.subject === id).map((e) => e.type)).toEqual([
        `${entityType}.created`,
      ]);
    });
  },
);
