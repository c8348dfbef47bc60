import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollStream } from '../../shared/polling/poll-stream.ts';
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

/**
 * Tracked ids (exports): an id the connector stops returning is published as deleted. The id
 * stays configured; should the connector return it again, that is news (created), as a listing
 * or a sweep tells a record come back. Its tombstone must not stop the id from being asked for.
 */
describe('a tracked export the connector stops returning, then returns again', () => {
  it('is published as deleted, then as created', async () => {
    const { definition, deps } = harness.streamOf('export');
    await pollUntilCaughtUp(definition, deps);
    const model = harness.sim.controls.model;
    const id = (await storedIds(deps, definition.streamId)).find(
      (candidate) => model.exports.get(candidate)?.record.Status !== 'Expired',
    )!;
    const entry = model.exports.get(id)!;
    const record = { ...entry.record };
    const createdMs = model.exportTimeline.get(id);
    harness.publisher.events.length = 0;

    model.hardDelete(model.exports, 'export', id);
    await harness.clock.advance(1000);
    await pollStream(definition, deps, 't');
    expect(harness.publisher.events.map((e) => `${e.type} ${e.subject}`)).toEqual([
      `export.deleted ${id}`,
    ]);

    // The same export answered again (the simulator drops it and stores it anew, as it was).
    harness.publisher.events.length = 0;
    model.purge(model.exports, id);
    const now = harness.clock.now();
    model.create(model.exports, 'export', record, {
      enterpriseId: entry.enterpriseId,
      chainId: entry.chainId,
      createdMs: now,
      updatedMs: now,
    });
    if (createdMs !== undefined) model.exportTimeline.set(id, createdMs);
    await harness.clock.advance(1000);
    await pollStream(definition, deps, 't');
    expect(harness.publisher.events.filter((e) => e.subject === id).map((e) => e.type)).toEqual([
      'export.created',
    ]);
  });
});
