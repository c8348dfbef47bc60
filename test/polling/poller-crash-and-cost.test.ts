import { afterEach, describe, expect, it } from 'vitest';
import { compareEvents, expectedEventsOfRound } from './journal-oracle.ts';
import { type PollHarness, startPollHarness } from './poll-harness.ts';

function requestsByOperation(h: PollHarness): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const entry of h.sim.controls.requestLog())
    counts[entry.operation] = (counts[entry.operation] ?? 0) + 1;
  return counts;
}

const WINDOWED_OPERATIONS = [
  'customers/getAll',
  'resources/getAll',
  'accountNotes/getAll',
  'accountingCategories/getAll',
  'loyaltyMemberships/getAll',
  'paymentRequests/getAll',
  'reservationGroups/getAll',
  'productCategories/getAll',
  'resourceCategoryImageAssignments/getAll',
];

let h: PollHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('publish first, commit after', () => {
  it('republishes the same events with the same ids after a crash between publish and commit', async () => {
    h = await startPollHarness();
    const harness = h;
    await harness.pollAll();
    const seq = harness.sim.controls.journal().at(-1)?.seq ?? 0;
    await harness.sim.controls.runActivity({ steps: 300 });
    await harness.clock.advance(1000);
    let crashed = false;
    harness.observer.afterPublish = (streamId, changes) => {
      if (!crashed && streamId === 'sim:customer' && changes.events.length > 0) {
        crashed = true;
        throw new Error('poller stopped between publish and commit');
      }
    };
    const outcomes = await harness.pollAll();
    expect(crashed).toBe(true);
    expect(outcomes.find((o) => o.streamId === 'sim:customer')).toMatchObject({ kind: 'failed' });
    const beforeRestart = harness.publisher.events.filter((e) => e.data.entityType === 'customer');
    expect(beforeRestart.length).toBeGreaterThan(0);

    harness.observer.afterPublish = undefined;
    await harness.clock.advance(2000);
    const retried = await harness.pollAll();
    expect(retried.find((o) => o.streamId === 'sim:customer')).toMatchObject({ kind: 'polled' });
    const all = harness.publisher.events.filter((e) => e.data.entityType === 'customer');
    const afterRestart = all.slice(beforeRestart.length);
    const repeatedIds = new Set(afterRestart.map((e) => e.id));
    for (const event of beforeRestart) expect(repeatedIds).toContain(event.id);

    const union = [
      ...new Map(all.map((e) => [e.id, { type: e.type, subject: e.subject }])).values(),
    ];
    const expected = expectedEventsOfRound(
      harness.sim.controls.journal(seq).filter((e) => e.entityType === 'customer'),
    );
    expect(compareEvents(expected, union)).toEqual({
      missing: [],
      unexpected: [],
      byAlternative: [],
    });
  }, 60_000);
});

describe('connector requests per cycle', () => {
  it('costs one request per quiet windowed stream and ceil(k/1000) for k changes', async () => {
    // 2,000 customers on the small dataset: enough for 1,500 changes to span two pages of
    // 1,000; a medium dataset's first sync would only cost time. Requests are counted at the
    // simulator, whatever keeps the snapshots: in memory, the first sync and the 1,500 updates
    // cost no dynalite writes (the state store contract holds both stores to the same reads).
    h = await startPollHarness('small', 5, { customers: 2_000 }, {}, 'memory');
    const harness = h;
    await harness.pollAll();

    await harness.clock.advance(1000);
    harness.sim.controls.clearRequestLog();
    await harness.pollAll();
    const quiet = requestsByOperation(harness);
    for (const operation of WINDOWED_OPERATIONS)
      expect({ operation, requests: quiet[operation] }).toEqual({ operation, requests: 1 });
    expect(quiet['billingAutomations/getAll']).toBe(1);
    expect(quiet['taxEnvironments/getAll']).toBe(1);
    expect(quiet['exports/getAll']).toBe(1);

    const model = harness.sim.controls.model;
    const ids = [...model.customers.all()]
      .filter((entry) => entry.record.IsActive)
      .slice(0, 1500)
      .map((entry) => entry.record.Id);
    for (const [i, id] of ids.entries()) {
      model.update(model.customers, 'customer', id, { Notes: `changed ${i}` });
    }
    await harness.clock.advance(1000);
    harness.sim.controls.clearRequestLog();
    await harness.pollAll();
    const busy = requestsByOperation(harness);
    expect(busy['customers/getAll']).toBe(Math.ceil(1500 / 1000));
    expect(harness.publisher.events.filter((e) => e.type === 'customer.updated')).toHaveLength(
      1500,
    );
  }, 120_000);
});
