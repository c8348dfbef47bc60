import { describe, expect, it } from 'vitest';
import { adminCaller } from '../support/admin-call.ts';
import { waitFor } from '../support/wait-for.ts';
import { customerStreamOf, useCustomerBridge } from './customer-bridge.ts';

describe('change-bridge start killed (SIGKILL) in the middle of a first sync with INITIAL_SYNC=emit', () => {
  const fixture = useCustomerBridge({
    seed: 21,
    dataDirPrefix: 'bridge-crash-sync-',
    pollInterval: '1s',
    env: { INITIAL_SYNC: 'emit', CONNECTOR_RATE_LIMIT: 'off' },
  });
  const call = adminCaller(() => fixture.bridge.api);
  const customerStream = customerStreamOf(call);

  it('delivers every created event at least once, under one id each, and ends with the watermark of a whole sync', async () => {
    // The connector answers 429 until the subscription exists: no event of the sync is
    // published before anyone subscribes.
    fixture.sim.controls.setFaults({ rate: 1, kinds: ['rate-limit'], retryAfterSeconds: 1 });
    fixture.bridge.start();
    const subscription = (await waitFor(
      () => call('POST', '/subscriptions', { url: fixture.receiver.url }).catch(() => undefined),
      30_000,
      'the admin API',
      100,
    )) as { secret: string };
    fixture.receiver.setSecret(subscription.secret);
    // Small, slow pages: the sync takes many pages, so a SIGKILL lands in its middle.
    fixture.sim.controls.setFaults({
      rate: 1,
      kinds: ['slow'],
      slowMs: 150,
      timeoutAboveCount: 20,
    });

    const midway = await waitFor(
      async () => {
        const stream = await customerStream();
        return (stream?.windowInProgress?.pages ?? 0) >= 2 && fixture.receiver.received.length >= 10
          ? stream
          : undefined;
      },
      20_000,
      'the first sync to be under way, with pages stored and delivered',
      25,
    );
    await fixture.bridge.kill();
    const deliveredBefore = fixture.receiver.received.length;
    expect(midway.initialSyncDone).toBe(false);

    fixture.sim.controls.setFaults({ rate: 0, timeoutAboveCount: null });
    fixture.bridge.start();
    const done = await waitFor(
      async () => {
        const stream = await customerStream();
        return stream?.initialSyncDone ? stream : undefined;
      },
      30_000,
      'the first sync to finish after the restart',
      100,
    );

    const customers = [...fixture.sim.controls.model.customers.all()]
      .map((entry) => entry.record)
      .filter((record) => record.IsActive !== false);
    const expected = new Set(customers.map((record) => record.Id));
    const created = () =>
      fixture.receiver.received.filter((event) => event.type === 'customer.created');
    await waitFor(
      () => [...expected].every((id) => created().some((event) => event.subject === id)),
      20_000,
      'every created event',
      50,
    ).catch(() => undefined);
    const deliveredSubjects = new Set(created().map((event) => event.subject));
    const missing = [...expected].filter((id) => !deliveredSubjects.has(id));
    expect(missing).toEqual([]);
    expect([...deliveredSubjects].filter((id) => !expected.has(id))).toEqual([]);
    // At-least-once: a subject may arrive twice, but always under its one event id.
    const idsOf = new Map<string, Set<string>>();
    for (const event of created())
      idsOf.set(event.subject, (idsOf.get(event.subject) ?? new Set()).add(event.webhookId));
    expect([...idsOf].filter(([, ids]) => ids.size > 1)).toEqual([]);
    const duplicates = created().length - deliveredSubjects.size;
    console.log(
      `killed after ${deliveredBefore} deliveries; ${expected.size} customers, ${created().length} created deliveries, ${duplicates} repeated`,
    );
    expect(fixture.receiver.rejected).toBe(0);

    // The watermark covers every record the sync read: none is newer than it.
    const newest = Math.max(...customers.map((record) => Date.parse(record.UpdatedUtc)));
    expect(done.watermark).not.toBeNull();
    expect(Date.parse(done.watermark!)).toBeGreaterThanOrEqual(newest);
    expect(Date.parse(done.watermark!)).toBeLessThanOrEqual(Date.now());
    expect(done.windowInProgress).toBeNull();
    expect(done.lastError).toBeNull();
    expect(await fixture.bridge.stop()).toBe(0);
  }, 90_000);
});
