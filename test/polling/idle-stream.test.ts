import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUtcMonths } from '../../shared/connector/records/common.ts';
import type { PollOutcome } from '../../shared/polling/poll-stream.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import {
  type PollHarness,
  pollUntilCaughtUp,
  startPollHarness,
  storedIds,
} from './poll-harness.ts';

let harness: PollHarness;
beforeAll(async () => {
  // Deletes leave `UpdatedUtc` where it was: the customers' DeletedUtc read and the account
  // notes' sweep find them, after the idle months, or nothing does.
  harness = await startPollHarness('small', 83, { deletesMoveUpdatedUtc: false });
});
afterAll(async () => {
  await harness?.close();
});

/** About four months: longer than the three months a time filter may span. */
const IDLE_MS = 122 * 24 * 60 * 60_000;

/**
 * design.md, Windows and Time filters: a stream whose bridge was stopped for four months reads
 * that time in windows of at most three months (a longer filter is a 400 from the simulator, as
 * from the service), never fails, and publishes what changed meanwhile, its deletions included.
 * Customers carry `UpdatedUtc` and read deletions on `DeletedUtc`; account notes carry no
 * `UpdatedUtc` (the window end is their watermark) and are swept.
 */
describe.each(['customer', 'accountNote'] as const)('a %s stream idle for four months', (type) => {
  it('catches up in windows of at most three months and publishes what changed meanwhile', async () => {
    const { definition, deps } = harness.streamOf(type);
    await pollUntilCaughtUp(definition, deps);
    const [changedId, deletedId] = await storedIds(deps, definition.streamId);
    const model = harness.sim.controls.model;
    await harness.clock.advance(60_000);
    if (type === 'customer') {
      model.update(model.customers, 'customer', changedId!, { Notes: 'idle months' });
    } else {
      model.update(model.accountNotes, 'accountNote', changedId!, { Content: 'idle months' });
    }
    await harness.clock.advance(IDLE_MS);
    if (type === 'customer') {
      model.softDelete(model.customers, 'customer', deletedId!, {
        IsActive: false,
        ActivityState: 'Deleted',
      });
    } else {
      model.softDelete(model.accountNotes, 'accountNote', deletedId!, { IsActive: false });
    }
    await harness.clock.advance(1000);
    harness.publisher.events.length = 0;

    const windows: { startUtc: string; endUtc: string }[] = [];
    harness.observer.onWindow = (streamId, window) => {
      if (streamId === definition.streamId) windows.push(window);
    };
    const outcomes: PollOutcome[] = [];
    for (let poll = 0; poll < 5; poll++) {
      const outcome = await pollStream(definition, deps, 't');
      outcomes.push(outcome);
      if (outcome.kind === 'polled' && outcome.caughtUp) break;
    }
    expect(outcomes.filter((o) => o.kind !== 'polled')).toEqual([]);
    expect(outcomes.at(-1)).toMatchObject({ caughtUp: true });
    harness.observer.onWindow = undefined;
    // The idle months in two windows or more, each within three months of its start.
    expect(windows.length).toBeGreaterThanOrEqual(2);
    for (const { startUtc, endUtc } of windows)
      expect(Date.parse(endUtc)).toBeLessThanOrEqual(addUtcMonths(Date.parse(startUtc), 3));
    // No request refused (a time filter over three months is a 400).
    expect(harness.sim.controls.requestLog().filter((r) => r.status !== 200)).toEqual([]);
    expect(
      harness.publisher.events
        .filter((e) => e.subject === changedId || e.subject === deletedId)
        .map((e) => `${e.type} ${e.subject}`)
        .sort(),
    ).toEqual([`${type}.deleted ${deletedId}`, `${type}.updated ${changedId}`].sort());
  });
});
