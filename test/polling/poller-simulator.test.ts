import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityEvent } from '../../shared/changes/entity-event-schema.ts';
import type { JournalEntry } from '../../shared/simulator/journal.ts';
import { dayStartUtc } from '../../shared/time-zone.ts';
import { modelContent } from '../support/model-content.ts';
import { compareEvents, type ExpectedEvent, expectedEventsOfRound } from './journal-oracle.ts';
import { type PollHarness, startPollHarness } from './poll-harness.ts';

const ROUNDS = 10;
const MUTATIONS_PER_ROUND = 250;
/** Longer than every sweep interval (payment requests: 60 min). */
const SWEEP_WAIT_MS = 61 * 60_000;

/** Journal entries the two connections can see, and product prices inside the polled horizon. */
function visible(h: PollHarness, entries: readonly JournalEntry[]): JournalEntry[] {
  const model = h.sim.controls.model;
  const world = model.world;
  const hotelId = world.enterprises[0]!.Id;
  const zoneOf = new Map(
    world.products.map((p) => [
      p.Id,
      world.enterprises.find((e) => e.Id === p.EnterpriseId)!.timeZone,
    ]),
  );
  return entries.filter((entry) => {
    if (entry.entityType === 'resourceCategoryImageAssignment') {
      const assignment = model.resourceCategoryImageAssignments.get(entry.entityId)?.record;
      return (
        model.resourceCategories.get(assignment?.CategoryId ?? '')?.record.EnterpriseId === hotelId
      );
    }
    if (entry.entityType === 'productPrice') {
      const [productId = '', unitStart = ''] = entry.entityId.split(/:(.+)/);
      const zone = zoneOf.get(productId)!;
      const now = h.clock.now();
      const start = Date.parse(unitStart);
      return start >= dayStartUtc(now, zone) && start <= dayStartUtc(now, zone, 6);
    }
    return true;
  });
}

function asExpected(events: readonly EntityEvent[]): ExpectedEvent[] {
  return events.map((event) => ({ type: event.type, subject: event.subject }));
}

/**
 * The overlap of the harness's windows (2 s, no settle lag): a simulator whose mutations show
 * this long after their stamp (a commit lag) puts each in a window already read, and the next
 * window, starting an overlap before, must still find it.
 */
const HARNESS_OVERLAP_MS = 2000;

describe.each([
  { commitLagMs: 0, label: 'without a commit lag' },
  { commitLagMs: HARNESS_OVERLAP_MS, label: 'with a commit lag as long as the overlap' },
])('poller against the simulator and dynalite, $label', ({ commitLagMs }) => {
  let h: PollHarness;
  const expected: ExpectedEvent[] = [];
  const journaled: JournalEntry[] = [];

  beforeAll(async () => {
    h = await startPollHarness('small', 11, { commitLagMs });
    const baseline = await h.pollAll();
    expect(baseline.filter((o) => o.kind !== 'polled')).toEqual([]);
    expect(h.publisher.events).toEqual([]);
    let seq = h.sim.controls.journal().at(-1)?.seq ?? 0;
    // `before` is read together with the journal position: a change the simulator journals
    // lazily during a poll then belongs, with its content, to the next round.
    let before = modelContent(h.sim);
    for (let round = 0; round < ROUNDS; round++) {
      await h.sim.controls.runActivity({ steps: MUTATIONS_PER_ROUND });
      await h.clock.advance(1000);
      const entries = h.sim.controls.journal(seq);
      const after = modelContent(h.sim);
      journaled.push(...entries);
      expected.push(...expectedEventsOfRound(visible(h, entries), before, after));
      before = after;
      seq = entries.at(-1)?.seq ?? seq;
      const outcomes = await h.pollAll();
      expect(outcomes.filter((o) => o.kind === 'failed')).toEqual([]);
    }
    await h.clock.advance(SWEEP_WAIT_MS);
    const late = h.sim.controls.journal(seq);
    journaled.push(...late);
    expected.push(...expectedEventsOfRound(visible(h, late)));
    await h.pollAll();
    // Export lifecycle steps are journaled when the simulator observes the time passing.
    const last = h.sim.controls.journal(late.at(-1)?.seq ?? seq);
    journaled.push(...last);
    expected.push(...expectedEventsOfRound(visible(h, last)));
  }, 120_000);

  afterAll(async () => {
    await h.close();
  });

  it('makes at least 2,000 mutations of every kind across the entity types', () => {
    const kinds = new Set(journaled.map((entry) => entry.kind));
    expect(journaled.length).toBeGreaterThanOrEqual(2000);
    for (const kind of [
      'created',
      'updated',
      'touched',
      'soft-deleted',
      'hard-deleted',
      'restored',
    ])
      expect(kinds).toContain(kind);
    const types = new Set(journaled.map((entry) => entry.entityType));
    expect(types.size).toBeGreaterThanOrEqual(12);
  });

  it('publishes exactly the events the journal implies', () => {
    const got = asExpected(h.publisher.events);
    const { missing, unexpected } = compareEvents(expected, got);
    console.log(
      `expected ${expected.length}, got ${got.length}, missing ${missing.length}, unexpected ${unexpected.length}`,
    );
    expect(missing).toEqual([]);
    expect(unexpected).toEqual([]);
  });

  // With the lag, each mutation is first read at the very start of a window's overlap, and not
  // again: nothing is re-read to pass over.
  it.runIf(commitLagMs === 0)(
    'passes over records re-read unchanged in the overlap (the local runtime does)',
    () => {
      expect(h.overlapMemory.passedOver).toBeGreaterThan(0);
    },
  );

  it('detects deletes by each strategy', () => {
    const deleted = new Set(
      h.publisher.events.filter((e) => e.data.change === 'deleted').map((e) => e.data.entityType),
    );
    for (const type of [
      'customer',
      'resource',
      'accountNote',
      'loyaltyMembership',
      'reservationGroup',
      'paymentRequest',
      'productCategory',
      'billingAutomation',
    ]) {
      expect(deleted).toContain(type);
    }
  });

  it('emits nothing for a touch that changed only UpdatedUtc', () => {
    const touchedOnly = new Set(
      journaled
        .filter((entry) => entry.kind === 'touched')
        .map((entry) => `${entry.entityType}:${entry.entityId}`),
    );
    for (const entry of journaled)
      if (entry.kind !== 'touched') touchedOnly.delete(`${entry.entityType}:${entry.entityId}`);
    expect(touchedOnly.size).toBeGreaterThan(0);
    const touchedEvents = h.publisher.events.filter((e) =>
      touchedOnly.has(`${e.data.entityType}:${e.subject}`),
    );
    expect(touchedEvents).toEqual([]);
  });

  it('gives every event a unique, well-formed id', () => {
    const ids = h.publisher.events.map((event) => event.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
  });
});
