import { describe, expect, it } from 'vitest';
import { buildChangeEvent } from '../../shared/changes/event.ts';
import { ManualClock } from '../../shared/clock.ts';
import { createDispatcherDeps } from '../../shared/webhooks/dispatcher-deps.ts';
import { applyOutcome } from '../../shared/webhooks/endpoint-health.ts';
import { recordHealth } from '../../shared/webhooks/endpoint-notices.ts';
import { MemoryWebhookStore } from '../../shared/webhooks/memory-store.ts';
import { DispatchEventSchema } from '../../shared/webhooks/messages.ts';
import {
  MemoryOperationalEventSink,
  type OperationalEventSink,
} from '../../shared/webhooks/operational-events.ts';
import { freshEndpointState } from '../../shared/webhooks/store.ts';
import {
  matchesEventType,
  matchesSubscription,
  type Subscription,
} from '../../shared/webhooks/subscription.ts';
import { changeEvent } from './support/harness.ts';

const subscription = (fields: Partial<Subscription>): Subscription => ({
  id: 'sub_1',
  url: 'https://hooks.example.com',
  events: ['*'],
  enabled: true,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  secret: 'whsec_AAAA',
  ...fields,
});
const event = (options: Parameters<typeof changeEvent>[1]) =>
  DispatchEventSchema.parse(changeEvent('evt_1', options));

describe('subscription filters', () => {
  it('matches event types exactly and by wildcard segment', () => {
    expect(matchesEventType('customer.updated', 'customer.updated')).toBe(true);
    expect(matchesEventType('customer.*', 'customer.deleted')).toBe(true);
    expect(matchesEventType('*.deleted', 'resource.deleted')).toBe(true);
    expect(matchesEventType('*', 'anything.at.all')).toBe(true);
    expect(matchesEventType('customer.*', 'customerGroup.updated')).toBe(false);
    expect(matchesEventType('customer.*', 'customer')).toBe(false);
  });

  it('filters by enterprise or chain scope', () => {
    const scoped = subscription({ scope: { chainIds: ['chain-2'] } });
    expect(matchesSubscription(scoped, event({ chainId: 'chain-2' }))).toBe(true);
    expect(matchesSubscription(scoped, event({ chainId: 'chain-1' }))).toBe(false);
    const byEnterprise = subscription({ scope: { enterpriseIds: ['ent-1'] } });
    expect(matchesSubscription(byEnterprise, event({}))).toBe(true);
  });

  it('filters updates by changed field and lets events without changed fields through', () => {
    const onlyEmail = subscription({
      events: ['customer.updated', 'customer.created'],
      changedFields: ['Email'],
    });
    expect(matchesSubscription(onlyEmail, event({ changedFields: ['Email', 'Phone'] }))).toBe(true);
    expect(matchesSubscription(onlyEmail, event({ changedFields: ['Phone'] }))).toBe(false);
    expect(
      matchesSubscription(onlyEmail, event({ type: 'customer.created', changedFields: [] })),
    ).toBe(true);
    expect(matchesSubscription(onlyEmail, event({ type: 'resource.updated' }))).toBe(false);
  });

  it('lets a created event through a changed-field filter whether or not its record has the field', () => {
    // A real created event names every field of its record in changedFields; one of a record
    // without the filtered field (an account note has no Email) was dropped, its delete sent.
    const onlyEmail = subscription({ events: ['accountNote.*'], changedFields: ['Email'] });
    const note = { Id: 'n1', Content: 'Late check-in', IsActive: true };
    const base = {
      connectionId: 'local',
      entityType: 'accountNote',
      entityId: 'n1',
      scope: {},
      detectedAt: 0,
    } as const;
    const created = buildChangeEvent({ ...base, change: 'created', current: note });
    const deleted = buildChangeEvent({ ...base, change: 'deleted', previous: note });
    const updated = buildChangeEvent({
      ...base,
      change: 'updated',
      previous: note,
      current: { ...note, Content: 'Early check-in' },
    });
    expect(created.data.changedFields).toEqual(['Content', 'Id', 'IsActive']);
    expect(matchesSubscription(onlyEmail, DispatchEventSchema.parse(created))).toBe(true);
    expect(matchesSubscription(onlyEmail, DispatchEventSchema.parse(deleted))).toBe(true);
    expect(matchesSubscription(onlyEmail, DispatchEventSchema.parse(updated))).toBe(false);
  });
});

describe('endpoint health', () => {
  const policy = { failingAfterFailures: 4, disableAfterMs: 5 * 86_400_000 };
  const failure = { kind: 'retry', at: 0 } as const;

  it('announces failing after 4 consecutive failures, once, and recovered after 4 successes in a row', () => {
    let state = freshEndpointState('sub_1');
    const notices: string[][] = [];
    for (let i = 0; i < 5; i++) {
      const change = applyOutcome(state, failure, 1000 + i, policy);
      state = change.state;
      notices.push(change.notices);
    }
    expect(notices).toEqual([[], [], [], ['failing'], []]);
    for (let i = 0; i < 3; i++) {
      const change = applyOutcome(state, { kind: 'delivered' }, 2000 + i, policy);
      expect(change.notices).toEqual([]);
      state = change.state;
    }
    const recovered = applyOutcome(state, { kind: 'delivered' }, 2000, policy);
    expect(recovered.notices).toEqual(['recovered']);
    expect(recovered.state).toMatchObject({ consecutiveFailures: 0, failingNotified: false });
    expect(applyOutcome(recovered.state, { kind: 'delivered' }, 3000, policy).changed).toBe(false);
  });

  it('says failing and recovered once over a run that fails 4 times for every success', () => {
    let state = freshEndpointState('sub_1');
    const notices: string[] = [];
    let now = 1000;
    const fold = (outcome: Parameters<typeof applyOutcome>[1]) => {
      now += 1000;
      const change = applyOutcome(state, outcome, now, policy);
      state = change.state;
      notices.push(...change.notices);
    };
    // Ten cycles of 4 failures and 1 success: the endpoint flaps, it does not recover.
    for (let cycle = 0; cycle < 10; cycle++) {
      for (let i = 0; i < 4; i++) fold(failure);
      fold({ kind: 'delivered' });
    }
    expect(notices).toEqual(['failing']);
    // Each success still clears the run that would disable the subscription.
    expect(state).toMatchObject({ consecutiveFailures: 0, failingSince: undefined });
    // Recovered once it answers as many times in a row as failures announced the run.
    for (let i = 0; i < 3; i++) fold({ kind: 'delivered' });
    expect(notices).toEqual(['failing', 'recovered']);
    expect(state).toMatchObject({ consecutiveFailures: 0, failingNotified: false });
    expect(applyOutcome(state, { kind: 'delivered' }, now + 1, policy).changed).toBe(false);
  });

  it('asks to disable after failing without success for the configured time', () => {
    const start = applyOutcome(freshEndpointState('sub_1'), failure, 0, policy).state;
    expect(applyOutcome(start, failure, policy.disableAfterMs - 1, policy).notices).not.toContain(
      'disable',
    );
    expect(applyOutcome(start, failure, policy.disableAfterMs, policy).notices).toContain(
      'disable',
    );
  });

  it('counts no 410 as a failure: the subscription is disabled, not announced failing', () => {
    let state = freshEndpointState('sub_1');
    for (let i = 0; i < 3; i++) state = applyOutcome(state, failure, 1000 + i, policy).state;
    for (let i = 0; i < 4; i++) {
      const gone = applyOutcome(state, { kind: 'gone' }, 2000 + i, policy);
      expect(gone).toEqual({ state, changed: false, notices: [] });
    }
    expect(state.consecutiveFailures).toBe(3);
  });

  it('records a Retry-After pause and never shortens it', () => {
    const paused = applyOutcome(
      freshEndpointState('s'),
      { kind: 'retry', at: 9000, pauseUntil: 9000 },
      0,
      policy,
    );
    expect(paused.state.pausedUntil).toBe(9000);
    const shorter = applyOutcome(
      paused.state,
      { kind: 'retry', at: 5000, pauseUntil: 5000 },
      1,
      policy,
    );
    expect(shorter.state.pausedUntil).toBe(9000);
  });
});

/** A dispatcher's parts for its endpoints' health: a manual clock, a memory store, `sink`. */
function healthDeps(sink: OperationalEventSink) {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const store = new MemoryWebhookStore();
  const deps = createDispatcherDeps({
    clock,
    sink,
    store,
    queue: undefined as never,
    sender: undefined as never,
  });
  return { clock, store, deps };
}

describe('endpoint notices', () => {
  it('counts every failure of deliveries that read the same state, and announces a run once', async () => {
    const sink = new MemoryOperationalEventSink();
    const { clock, store, deps } = healthDeps(sink);
    const sub = subscription({});
    await store.putSubscription(sub);
    const failure = { kind: 'retry', at: 0 } as const;
    const stored = async () => (await store.getEndpointState(sub.id))!;
    // Failing since now: far from disabling the subscription (5 days).
    await store.putEndpointState(
      { ...freshEndpointState(sub.id), consecutiveFailures: 2, failingSince: clock.now() },
      { ifVersion: undefined },
    );
    // Three concurrent deliveries read the same state and fail at once: all three count.
    const read = await stored();
    await Promise.all([1, 2, 3].map(() => recordHealth(sub, read, failure, deps)));
    expect(await stored()).toMatchObject({ consecutiveFailures: 5, failingNotified: true });
    // Five successes read the announced run: it is cleared, and recovery is said once (after 4).
    const announced = await stored();
    await Promise.all(
      [1, 2, 3, 4, 5].map(() => recordHealth(sub, announced, { kind: 'delivered' }, deps)),
    );
    expect(await stored()).toMatchObject({ consecutiveFailures: 0, failingNotified: false });
    // A later failing run, crossed from a stale read of the cleared state, is another notice.
    await clock.advance(10);
    await Promise.all([1, 2, 3, 4].map(() => recordHealth(sub, read, failure, deps)));
    const ids = (type: string) => sink.events.filter((e) => e.type === type).map((e) => e.id);
    expect(ids('delivery.failing')).toHaveLength(2);
    expect(new Set(ids('delivery.failing')).size).toBe(2);
    expect(ids('delivery.recovered')).toHaveLength(1);
    expect(await stored()).toMatchObject({ consecutiveFailures: 4, failingSince: clock.now() });
  });

  it('are published in the order they were decided, though the first one publishes slowly', async () => {
    let release!: () => void;
    const slowFirst = new Promise<void>((resolve) => {
      release = resolve;
    });
    const published: string[] = [];
    const sink = {
      async publish(event: { type: string }) {
        if (published.length === 0 && event.type === 'delivery.failing') await slowFirst;
        published.push(event.type);
      },
    };
    const { clock, store, deps } = healthDeps(sink);
    const sub = subscription({});
    await store.putSubscription(sub);
    await store.putEndpointState(
      { ...freshEndpointState(sub.id), consecutiveFailures: 3, failingSince: clock.now() },
      { ifVersion: undefined },
    );
    const read = (await store.getEndpointState(sub.id))!;
    // A fourth failure announces the run; 4 successes folded right after it end the run.
    const failing = recordHealth(sub, read, { kind: 'retry', at: 0 }, deps);
    const recovered = [1, 2, 3, 4].map(() => recordHealth(sub, read, { kind: 'delivered' }, deps));
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await Promise.all([failing, ...recovered]);
    expect(published).toEqual(['delivery.failing', 'delivery.recovered']);
  });
});
