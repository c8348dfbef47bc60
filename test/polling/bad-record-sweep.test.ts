import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollConnectionStreams } from '../../shared/polling/poll-connection.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import {
  type PollHarness,
  pollUntilCaughtUp,
  startPollHarness,
  storedIds,
} from './poll-harness.ts';

let harness: PollHarness;
beforeAll(async () => {
  harness = await startPollHarness('small', 31);
});
afterAll(async () => {
  await harness?.close();
});

/**
 * design.md, Bad input, in a reconciliation sweep (simulator, dynalite): a payment request that
 * breaks its schema still exists, so the sweep marks it by its Id instead of failing (which left
 * every sweep of the stream failing, and its removed records never swept) or sweeping it.
 */
describe('a record that breaks its schema in a sweep', () => {
  it('is marked present, while a record removed for good is swept as deleted', async () => {
    const definitions = harness
      .definitions()
      .filter((d) => !d.streamId.startsWith('hotel:'))
      .map((d) => ({ ...d, phaseMs: 0 }));
    const payment = definitions.find((d) => d.spec.entityType === 'paymentRequest')!;
    const deps = harness.deps('chain');
    await pollConnectionStreams([payment.streamId], definitions, deps, 't');
    const synced = (await deps.store.getStream(payment.streamId))!;

    const model = harness.sim.controls.model;
    const [broken, removed] = await storedIds(deps, payment.streamId);
    model.update(model.paymentRequests, 'paymentRequest', broken!, {
      State: 'FutureState',
    } as never);
    model.hardDelete(model.paymentRequests, 'paymentRequest', removed!);
    await harness.clock.advance(61 * 60_000);
    harness.publisher.events.length = 0;

    const { outcomes } = await pollConnectionStreams([payment.streamId], definitions, deps, 't');
    expect(outcomes).toMatchObject([{ kind: 'polled', setAside: { records: 1 } }]);
    const state = (await deps.store.getStream(payment.streamId))!;
    expect(state).toMatchObject({ lastError: null, consecutiveFailures: 0 });
    expect(state.lastSweepAt).toBeGreaterThan(synced.lastSweepAt!);
    expect(state.lastSetAside?.error).toContain(broken);
    const deleted = harness.publisher.events.filter((e) => e.type === 'paymentRequest.deleted');
    expect(deleted.map((e) => e.subject)).toEqual([removed]);
  });
});

/**
 * The same in a snapshot listing (billing automations, listed whole each poll): a record that
 * breaks its schema keeps its snapshot as it was instead of failing every poll of the stream,
 * and is not taken for deleted.
 */
describe('a record that breaks its schema in a snapshot listing', () => {
  it('is set aside and kept, while a record no longer listed is deleted', async () => {
    const { definition, deps } = harness.streamOf('billingAutomation');
    expect(await pollStream(definition, deps, 't')).toMatchObject({ kind: 'polled' });
    const [broken, removed] = await storedIds(deps, definition.streamId);
    const model = harness.sim.controls.model;
    model.update(model.billingAutomations, 'billingAutomation', broken!, { Name: '' });
    model.hardDelete(model.billingAutomations, 'billingAutomation', removed!);
    await harness.clock.advance(10 * 60_000);
    harness.publisher.events.length = 0;

    expect(await pollStream(definition, deps, 't')).toMatchObject({
      kind: 'polled',
      setAside: { records: 1 },
    });
    const state = (await deps.store.getStream(definition.streamId))!;
    expect(state).toMatchObject({ lastError: null, recordsSetAside: 1 });
    expect(state.lastSetAside?.error).toMatch(/BillingAutomations\[\d+\]\.Name/);
    expect(state.lastSetAside?.error).toContain(broken);
    expect(harness.publisher.events.map((e) => `${e.type} ${e.subject}`)).toEqual([
      `billingAutomation.deleted ${removed}`,
    ]);
    const kept = (await deps.store.getSnapshots(definition.streamId, [broken!])).get(broken!);
    expect(kept?.deleted ?? false).toBe(false);
  });
});

/**
 * The same among tracked exports (fetched by id each poll, unpaginated): a record that breaks its
 * schema keeps its snapshot as it was instead of failing every poll of the stream, and is not
 * taken for deleted.
 */
describe('a record that breaks its schema among tracked exports', () => {
  it('is set aside and kept, while another export changing is published', async () => {
    const { definition: exports, deps } = harness.streamOf('export');
    const model = harness.sim.controls.model;
    // Two exports still followed (an Expired one is no longer asked for), on a stream of their own.
    const [broken, changed] = [...model.exports.all()].slice(0, 2).map((e) => e.record.Id);
    expect(changed).toBeDefined();
    for (const id of [broken!, changed!]) {
      model.exportTimeline.delete(id);
      model.update(model.exports, 'export', id, { Status: 'Success' });
    }
    const definition = {
      ...exports,
      streamId: `${exports.streamId}:broken`,
      trackedIds: [broken!, changed!],
    };
    expect(await pollStream(definition, deps, 't')).toMatchObject({ kind: 'polled' });
    model.update(model.exports, 'export', broken!, { Status: 42 } as never);
    model.update(model.exports, 'export', changed!, { Status: 'SomethingNew' });
    harness.publisher.events.length = 0;

    expect(await pollStream(definition, deps, 't')).toMatchObject({
      kind: 'polled',
      setAside: { records: 1 },
    });
    const state = (await deps.store.getStream(definition.streamId))!;
    expect(state).toMatchObject({ lastError: null, recordsSetAside: 1 });
    expect(state.lastSetAside?.error).toMatch(/Exports\[\d+\]\.Status/);
    expect(state.lastSetAside?.error).toContain(broken);
    const events = harness.publisher.events.map((e) => `${e.type} ${e.subject}`);
    expect(events).toContain(`export.updated ${changed}`);
    expect(events.filter((e) => e.endsWith(broken!))).toEqual([]);
    const kept = (await deps.store.getSnapshots(definition.streamId, [broken!])).get(broken!);
    expect(kept).toMatchObject({ record: { Status: expect.any(String) } });
    expect(kept?.deleted ?? false).toBe(false);
  });
});

/**
 * The same in the request that tells deleted loyalty memberships (their deleted records carry no
 * flag, so a page's records are classified by a second request returning only the deleted ones):
 * a membership changed, then broken and deleted between its page and that request, is deleted all
 * the same instead of failing the page.
 */
describe('a record that breaks its schema in the deleted-classification answer', () => {
  it('is classified as deleted by its Id, and published from the stored snapshot', async () => {
    const { definition, deps: base } = harness.streamOf('loyaltyMembership');
    await pollUntilCaughtUp(definition, base);
    const gone = (await storedIds(base, definition.streamId))[0]!;
    expect(gone).toBeDefined();
    const model = harness.sim.controls.model;
    model.update(model.loyaltyMemberships, 'loyaltyMembership', gone, { Points: 4242 });
    await harness.clock.advance(definition.intervalMs);
    harness.publisher.events.length = 0;

    // As the classification is asked for, the membership breaks its schema and is deleted.
    let raced = false;
    const client = {
      ...base.client,
      paginate: ((name, body, options) => {
        const ids = (body as { LoyaltyMembershipIds?: string[] }).LoyaltyMembershipIds;
        if (!raced && ids?.includes(gone)) {
          raced = true;
          model.update(model.loyaltyMemberships, 'loyaltyMembership', gone, {
            IsPrimary: 'yes',
          } as never);
          model.softDelete(model.loyaltyMemberships, 'loyaltyMembership', gone, {});
        }
        return base.client.paginate(name, body, options);
      }) as typeof base.client.paginate,
    };
    const outcome = await pollStream(definition, { ...base, client }, 't');
    expect(raced).toBe(true);
    expect(outcome).toMatchObject({ kind: 'polled' });
    const events = harness.publisher.events.filter((e) => e.subject === gone);
    expect(events.map((e) => e.type)).toEqual(['loyaltyMembership.deleted']);
    expect(JSON.stringify(events[0])).not.toContain('"yes"');
    const tombstone = (await base.store.getSnapshots(definition.streamId, [gone])).get(gone);
    expect(tombstone).toMatchObject({ deleted: true });
  });
});

/**
 * The same among tax environments (unpaginated, keyed by Code): a record that breaks its schema
 * keeps its snapshot by its Code instead of failing every poll of the stream.
 */
describe('a record that breaks its schema among tax environments', () => {
  it('is set aside and kept by its Code, while another one changing is published', async () => {
    const { definition, deps } = harness.streamOf('taxEnvironment');
    expect(await pollStream(definition, deps, 't')).toMatchObject({ kind: 'polled' });
    const [broken, changed] = await storedIds(deps, definition.streamId);
    expect(changed).toBeDefined();
    const model = harness.sim.controls.model;
    model.update(model.taxEnvironments, 'taxEnvironment', broken!, { CountryCode: 'xx' });
    model.update(model.taxEnvironments, 'taxEnvironment', changed!, {
      TaxationCodes: ['SIM-NEW'],
    });
    await harness.clock.advance(definition.intervalMs);
    harness.publisher.events.length = 0;

    expect(await pollStream(definition, deps, 't')).toMatchObject({
      kind: 'polled',
      setAside: { records: 1 },
    });
    const state = (await deps.store.getStream(definition.streamId))!;
    expect(state).toMatchObject({ lastError: null, recordsSetAside: 1 });
    expect(state.lastSetAside?.error).toMatch(/TaxEnvironments\[\d+\]\.CountryCode/);
    expect(harness.publisher.events.map((e) => `${e.type} ${e.subject}`)).toEqual([
      `taxEnvironment.updated ${changed}`,
    ]);
    const kept = (await deps.store.getSnapshots(definition.streamId, [broken!])).get(broken!);
    expect(kept?.deleted ?? false).toBe(false);
    expect(kept?.record.CountryCode).not.toBe('xx');
  });
});

/**
 * A loyalty membership that breaks its schema and is deleted (its deleted records carry no flag,
 * and its stream has no sweep): the window sets it aside, and asks whether it is deleted.
 */
describe('a deleted loyalty membership that breaks its schema', () => {
  it('is published as deleted from the stored snapshot', async () => {
    const { definition, deps } = harness.streamOf('loyaltyMembership');
    await pollUntilCaughtUp(definition, deps);
    const [gone, kept] = await storedIds(deps, definition.streamId);
    const model = harness.sim.controls.model;
    for (const id of [gone!, kept!]) {
      model.update(model.loyaltyMemberships, 'loyaltyMembership', id, {
        IsPrimary: 'yes',
      } as never);
    }
    model.softDelete(model.loyaltyMemberships, 'loyaltyMembership', gone!, {});
    await harness.clock.advance(definition.intervalMs);
    harness.publisher.events.length = 0;

    // Both are set aside (and the membership the test before broke and deleted, read again).
    expect(await pollStream(definition, deps, 't')).toMatchObject({
      kind: 'polled',
      setAside: { records: expect.any(Number) },
    });
    // The broken one still there is set aside, unpublished and kept as it was.
    expect(harness.publisher.events.map((e) => `${e.type} ${e.subject}`)).toEqual([
      `loyaltyMembership.deleted ${gone}`,
    ]);
    expect(JSON.stringify(harness.publisher.events)).not.toContain('"yes"');
    const snapshots = await deps.store.getSnapshots(definition.streamId, [gone!, kept!]);
    expect(snapshots.get(gone!)).toMatchObject({ deleted: true });
    expect(snapshots.get(kept!)?.deleted ?? false).toBe(false);
    expect(snapshots.get(kept!)?.record.IsPrimary).not.toBe('yes');
  });
});
