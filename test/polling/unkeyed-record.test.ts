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
  harness = await startPollHarness('small', 37);
});
afterAll(async () => {
  await harness?.close();
});

/**
 * design.md, Bad input: a record whose own key breaks its schema (here an `Id` that is not a
 * string) cannot be told apart from any stored record the listing no longer holds. It is set
 * aside naming the field; the listing's other changes are published, and no stored record is
 * taken for deleted while it is listed (each could be it), instead of every poll of the stream
 * failing (which published none of its changes for as long as the record stayed broken).
 */
describe('a record whose Id breaks its schema in a snapshot listing', () => {
  it('is set aside while the other changes are published and deletes wait for it', async () => {
    const { definition, deps } = harness.streamOf('billingAutomation');
    expect(await pollStream(definition, deps, 't')).toMatchObject({ kind: 'polled' });
    const [broken, changed, removed] = await storedIds(deps, definition.streamId);
    expect(removed).toBeDefined();
    const model = harness.sim.controls.model;
    model.update(model.billingAutomations, 'billingAutomation', broken!, { Id: 42 } as never);
    model.update(model.billingAutomations, 'billingAutomation', changed!, { Name: 'Renamed' });
    model.hardDelete(model.billingAutomations, 'billingAutomation', removed!);
    await harness.clock.advance(definition.intervalMs);
    harness.publisher.events.length = 0;

    expect(await pollStream(definition, deps, 't')).toMatchObject({
      kind: 'polled',
      setAside: { records: 1 },
    });
    const state = (await deps.store.getStream(definition.streamId))!;
    expect(state).toMatchObject({ lastError: null, consecutiveFailures: 0 });
    expect(state.lastSetAside?.error).toMatch(/BillingAutomations\[\d+\]\.Id/);
    expect(harness.publisher.events.map((e) => `${e.type} ${e.subject}`)).toEqual([
      `billingAutomation.updated ${changed}`,
    ]);
    const kept = await deps.store.getSnapshots(definition.streamId, [broken!, removed!]);
    expect(kept.get(broken!)?.deleted ?? false).toBe(false);
    expect(kept.get(removed!)?.deleted ?? false).toBe(false);

    // Once it reads as valid again, the listing judges deletes as before.
    model.update(model.billingAutomations, 'billingAutomation', broken!, { Id: broken } as never);
    await harness.clock.advance(definition.intervalMs);
    harness.publisher.events.length = 0;
    expect(await pollStream(definition, deps, 't')).toMatchObject({ kind: 'polled' });
    expect(harness.publisher.events.map((e) => `${e.type} ${e.subject}`)).toEqual([
      `billingAutomation.deleted ${removed}`,
    ]);
  });
});

/**
 * An `Id` that is a string but not an identifier (the contract's uuid) names no stored record
 * either: the record it stands for, no longer listed by its own Id, was taken for deleted.
 */
describe('a record whose Id is not an identifier in a snapshot listing', () => {
  it('is set aside without its own record being taken for deleted', async () => {
    const { definition, deps } = harness.streamOf('billingAutomation');
    expect(await pollStream(definition, deps, 't')).toMatchObject({ kind: 'polled' });
    const [garbled] = await storedIds(deps, definition.streamId);
    const model = harness.sim.controls.model;
    model.update(model.billingAutomations, 'billingAutomation', garbled!, {
      Id: 'not-an-id',
    } as never);
    await harness.clock.advance(definition.intervalMs);
    harness.publisher.events.length = 0;

    expect(await pollStream(definition, deps, 't')).toMatchObject({
      kind: 'polled',
      setAside: { records: 1 },
    });
    const state = (await deps.store.getStream(definition.streamId))!;
    expect(state.lastSetAside?.error).toMatch(/BillingAutomations\[\d+\]\.Id/);
    expect(harness.publisher.events.map((e) => `${e.type} ${e.subject}`)).toEqual([]);
    const kept = (await deps.store.getSnapshots(definition.streamId, [garbled!])).get(garbled!);
    expect(kept?.deleted ?? false).toBe(false);
    model.update(model.billingAutomations, 'billingAutomation', garbled!, { Id: garbled } as never);
  });
});

/**
 * The same among tracked exports (fetched by id): a record returned whose Id is unreadable
 * could be any export asked for that is not otherwise returned, so none of them is taken for
 * deleted, while another export changing is published (every poll of the stream failed).
 */
describe('a record whose Id breaks its schema among tracked exports', () => {
  it('is set aside while another export changing is published and none is deleted', async () => {
    const { definition: exports, deps } = harness.streamOf('export');
    const model = harness.sim.controls.model;
    const [broken, changed, removed] = [...model.exports.all()].slice(0, 3).map((e) => e.record.Id);
    expect(removed).toBeDefined();
    for (const id of [broken!, changed!, removed!]) {
      model.exportTimeline.delete(id);
      model.update(model.exports, 'export', id, { Status: 'Success' });
    }
    const definition = {
      ...exports,
      streamId: `${exports.streamId}:unkeyed`,
      trackedIds: [broken!, changed!, removed!],
    };
    expect(await pollStream(definition, deps, 't')).toMatchObject({ kind: 'polled' });
    model.update(model.exports, 'export', broken!, { Id: null } as never);
    model.update(model.exports, 'export', changed!, { Status: 'SomethingNew' });
    model.hardDelete(model.exports, 'export', removed!);
    harness.publisher.events.length = 0;

    expect(await pollStream(definition, deps, 't')).toMatchObject({
      kind: 'polled',
      setAside: { records: 1 },
    });
    const state = (await deps.store.getStream(definition.streamId))!;
    expect(state).toMatchObject({ lastError: null, consecutiveFailures: 0 });
    expect(state.lastSetAside?.error).toMatch(/Exports\[\d+\]\.Id/);
    expect(harness.publisher.events.map((e) => `${e.type} ${e.subject}`)).toEqual([
      `export.updated ${changed}`,
    ]);
    const kept = await deps.store.getSnapshots(definition.streamId, [broken!, removed!]);
    expect(kept.get(broken!)?.deleted ?? false).toBe(false);
    expect(kept.get(removed!)?.deleted ?? false).toBe(false);
  });
});

/**
 * The same in a reconciliation sweep (asked by id): a record returned whose Id is unreadable
 * could be any id of its request not otherwise returned, so none of them is swept, and the sweep
 * completes instead of failing every poll of the stream (which backed its live polls off).
 */
describe('a record whose Id breaks its schema in a sweep', () => {
  it('is noted, sweeps none of its request and lets the sweep complete', async () => {
    const { definition, deps } = harness.streamOf('paymentRequest');
    await pollUntilCaughtUp(definition, deps);
    const synced = (await deps.store.getStream(definition.streamId))!;
    const model = harness.sim.controls.model;
    const [broken, removed] = await storedIds(deps, definition.streamId);
    expect(removed).toBeDefined();
    // Broken without moving UpdatedUtc: only the sweep reads it again.
    const entry = model.paymentRequests.get(broken!)!;
    entry.record = { ...entry.record, Id: 42 } as never;
    model.hardDelete(model.paymentRequests, 'paymentRequest', removed!);
    await harness.clock.advance(61 * 60_000);
    harness.publisher.events.length = 0;

    expect(await pollStream(definition, deps, 't')).toMatchObject({
      kind: 'polled',
      setAside: { records: 1 },
    });
    const state = (await deps.store.getStream(definition.streamId))!;
    expect(state).toMatchObject({ lastError: null, consecutiveFailures: 0 });
    expect(state.lastSweepAt).toBeGreaterThan(synced.lastSweepAt!);
    expect(state.lastSetAside?.error).toMatch(/PaymentRequests\[\d+\]\.Id/);
    expect(harness.publisher.events.filter((e) => e.type === 'paymentRequest.deleted')).toEqual([]);
    const kept = await deps.store.getSnapshots(definition.streamId, [broken!, removed!]);
    expect(kept.get(broken!)?.deleted ?? false).toBe(false);
    expect(kept.get(removed!)?.deleted ?? false).toBe(false);
  });
});
