import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConnectorError } from '../../shared/connector/errors.ts';
import { pollStream } from '../../shared/polling/poll-stream.ts';
import type { StreamState } from '../../shared/state/state-store.ts';
import { type PagedCustomerStream, startPagedCustomerStream } from './paged-customer-stream.ts';

/**
 * design.md, Bad input: a record that breaks its schema gets a clear error naming the field, and
 * no other change is lost because of it (simulator, dynalite, pages of 10). The record is set
 * aside: its page's other records are published and stored, paging goes on, the window completes
 * and moves the watermark, and the stream's state names the field and the record.
 */
describe('a record that breaks its schema', () => {
  let h: PagedCustomerStream;
  let synced: StreamState;

  beforeEach(async () => {
    h = await startPagedCustomerStream();
    expect(await pollStream(h.definition, h.deps, 'test')).toMatchObject({ caughtUp: true });
    synced = (await h.deps.store.getStream(h.definition.streamId))!;
  }, 60_000);

  afterEach(() => h.close());

  /** Gives customer `id` a Classifications value the contract does not list. */
  function breakCustomer(id: string) {
    const model = h.sim.controls.model;
    model.update(model.customers, 'customer', id, {
      Classifications: ['FutureClassification'],
    } as never);
  }

  const stored = async () => (await h.deps.store.getStream(h.definition.streamId))!;

  it('is set aside while the other changes of its window are published and the watermark moves', async () => {
    const model = h.sim.controls.model;
    const [bad, ...good] = [...model.customers.all()].slice(0, 5).map((e) => e.record.Id);
    for (const id of good) model.update(model.customers, 'customer', id, { Notes: 'changed' });
    breakCustomer(bad!);
    await h.clock.advance(1000);

    const outcome = await pollStream(h.definition, h.deps, 'test');
    expect(outcome).toMatchObject({ kind: 'polled', caughtUp: true, setAside: { records: 1 } });
    expect(h.deps.publisher.events.map((e) => e.subject).sort()).toEqual([...good].sort());
    const state = await stored();
    expect(state).toMatchObject({ lastError: null, consecutiveFailures: 0, window: null });
    expect(Date.parse(state.watermark!)).toBeGreaterThan(Date.parse(synced.watermark!));
    expect(state.recordsSetAside).toBe(1);
    expect(state.lastSetAside?.error).toMatch(/Customers\[\d+\]\.Classifications\[0\]/);
    expect(state.lastSetAside?.error).toContain(bad);
    expect(state.lastSetAside?.at).toBe(h.clock.now());

    // Later polls that set nothing aside keep the note: the record's change was not published.
    await h.clock.advance(10_000);
    const later = await pollStream(h.definition, h.deps, 'test');
    expect(later).toMatchObject({ kind: 'polled' });
    expect(later).not.toHaveProperty('setAside');
    expect(await stored()).toMatchObject({
      recordsSetAside: 1,
      lastSetAside: state.lastSetAside,
    });

    // Once the record is valid again, its change is published like any other.
    model.update(model.customers, 'customer', bad!, { Classifications: ['Returning'] });
    await h.clock.advance(1000);
    await pollStream(h.definition, h.deps, 'test');
    expect(h.deps.publisher.events.map((e) => e.subject)).toContain(bad);
  });

  it('that its own flag reads as deleted is published as deleted, from the stored snapshot', async () => {
    const model = h.sim.controls.model;
    const [gone, other] = [...model.customers.all()].slice(0, 2).map((e) => e.record.Id);
    const before = (await h.deps.store.getSnapshots(h.definition.streamId, [gone!])).get(gone!)!;
    breakCustomer(gone!);
    model.softDelete(model.customers, 'customer', gone!, {
      IsActive: false,
      ActivityState: 'Deleted',
    } as never);
    model.update(model.customers, 'customer', other!, { Notes: 'changed' });
    await h.clock.advance(1000);

    const outcome = await pollStream(h.definition, h.deps, 'test');
    // Customers have no sweep: set aside, this deletion would never be published.
    expect(outcome).toMatchObject({ kind: 'polled', caughtUp: true, setAside: { records: 1 } });
    const events = h.deps.publisher.events;
    expect(events.map((e) => `${e.type} ${e.subject}`).sort()).toEqual(
      [`customer.deleted ${gone}`, `customer.updated ${other}`].sort(),
    );
    const deleted = events.find((e) => e.type === 'customer.deleted')!;
    // The event and the tombstone carry the record as it was last valid, not the broken one.
    expect(JSON.stringify(deleted)).not.toContain('FutureClassification');
    const tombstone = (await h.deps.store.getSnapshots(h.definition.streamId, [gone!])).get(gone!)!;
    expect(tombstone).toMatchObject({ deleted: true, hash: before.hash, record: before.record });
    expect((await stored()).lastSetAside?.error).toContain(gone);

    // Read again in the next window's overlap, it is not deleted twice.
    await h.clock.advance(1000);
    h.deps.publisher.events.length = 0;
    await pollStream(h.definition, h.deps, 'test');
    expect(h.deps.publisher.events).toEqual([]);
  });

  it('whose broken field is its scope is published as deleted in the scope it was stored with', async () => {
    const model = h.sim.controls.model;
    const [gone] = [...model.customers.all()].slice(0, 1).map((e) => e.record.Id);
    const before = (await h.deps.store.getSnapshots(h.definition.streamId, [gone!])).get(gone!)!;
    model.update(model.customers, 'customer', gone!, { ChainId: 'not-a-chain' } as never);
    model.softDelete(model.customers, 'customer', gone!, {
      IsActive: false,
      ActivityState: 'Deleted',
    } as never);
    await h.clock.advance(1000);

    await pollStream(h.definition, h.deps, 'test');
    const deleted = h.deps.publisher.events.find((e) => e.type === 'customer.deleted')!;
    expect(deleted.subject).toBe(gone);
    // A subscriber scoped to the customer's chain is sent its deletion, not one of a chain
    // named by the broken record.
    expect(deleted.data.scope).toEqual(before.scope);
    expect(JSON.stringify(deleted)).not.toContain('not-a-chain');
  });

  it('on a page saved before a failed one is told by a poll outcome, once', async () => {
    const model = h.sim.controls.model;
    const changed = [...model.customers.all()].slice(0, 25).map((e) => e.record.Id);
    // Pages are newest first by creation: the last of the 25 is on the first page.
    const bad = changed.at(-1)!;
    for (const id of changed.slice(0, -1))
      model.update(model.customers, 'customer', id, { Notes: 'changed' });
    breakCustomer(bad);
    await h.clock.advance(1000);

    // The second page fails (an internal error): the first, with its record set aside, is saved.
    const base = h.deps.client;
    const client = {
      ...base,
      paginate: ((name, body, options) => {
        const pages = base.paginate(name, body, options);
        return (async function* () {
          let page = 0;
          for await (const item of pages) {
            if (++page === 2)
              throw new ConnectorError('customers/getAll: internal error', {
                category: 'internal',
                operation: 'customers/getAll',
                status: 500,
              });
            yield item;
          }
        })();
      }) as typeof base.paginate,
    };
    const failed = await pollStream(h.definition, { ...h.deps, client }, 'test');
    expect(failed).toMatchObject({ kind: 'failed' });
    expect((await stored()).recordsSetAside).toBe(1);
    const resumed = await pollStream(h.definition, h.deps, 'test');
    expect(resumed).toMatchObject({ kind: 'polled', caughtUp: true });

    // Logged and counted (the RecordsSetAside metric) from the outcomes: one of them tells it.
    const told = [failed, resumed].map((o) => ('setAside' in o ? (o.setAside?.records ?? 0) : 0));
    expect(told.reduce((a, b) => a + b, 0)).toBe(1);
    expect(failed).toMatchObject({ setAside: { records: 1 } });
    expect((failed as { setAside?: { error: string } }).setAside?.error).toContain(bad);
  });

  it('on a page saved before the run is stopped is told by its outcome', async () => {
    const model = h.sim.controls.model;
    const changed = [...model.customers.all()].slice(0, 25).map((e) => e.record.Id);
    const bad = changed.at(-1)!;
    for (const id of changed.slice(0, -1))
      model.update(model.customers, 'customer', id, { Notes: 'changed' });
    breakCustomer(bad);
    await h.clock.advance(1000);

    // Stopped (the process stops, or a poll job's deadline aborts its request) on the second page.
    const stop = new AbortController();
    const base = h.deps.client;
    const client = {
      ...base,
      paginate: ((name, body, options) => {
        const pages = base.paginate(name, body, options);
        return (async function* () {
          let page = 0;
          for await (const item of pages) {
            if (++page === 2) {
              stop.abort(new Error('stopped'));
              throw stop.signal.reason;
            }
            yield item;
          }
        })();
      }) as typeof base.paginate,
    };
    const stopped = await pollStream(h.definition, { ...h.deps, client, signal: stop.signal }, 't');
    expect(stopped).toMatchObject({ kind: 'skipped', reason: 'stopped' });
    expect((await stored()).recordsSetAside).toBe(1);
    expect(stopped).toMatchObject({ setAside: { records: 1 } });
    expect(await pollStream(h.definition, h.deps, 'test')).not.toHaveProperty('setAside');
  });

  it('on the first page of three lets the second and third pages be read', async () => {
    const model = h.sim.controls.model;
    const changed = [...model.customers.all()].slice(0, 25).map((e) => e.record.Id);
    // Pages are newest first by creation: the last of the 25 is on the first page.
    const bad = changed.at(-1)!;
    for (const id of changed.slice(0, -1))
      model.update(model.customers, 'customer', id, { Notes: 'changed' });
    breakCustomer(bad);
    await h.clock.advance(1000);
    h.requests.length = 0;

    expect(await pollStream(h.definition, h.deps, 'test')).toMatchObject({
      kind: 'polled',
      caughtUp: true,
      setAside: { records: 1 },
    });
    // Pages of 10, 10 and 5: the set-aside record counts toward the first page's length.
    expect(h.requests).toHaveLength(3);
    const events = h.deps.publisher.events;
    expect(events.map((e) => e.subject).sort()).toEqual(changed.slice(0, -1).sort());
    const state = await stored();
    expect(state.window).toBeNull();
    expect(Date.parse(state.watermark!)).toBeGreaterThan(Date.parse(synced.watermark!));
    expect(state.lastSetAside?.error).toContain(bad);

    // The record was on the first page: asked for strictly, that page fails naming it.
    const { ClientToken: _c, AccessToken: _a, Client: _n, ...first } = h.requests[0]!;
    const strict = await h.client.call('customers/getAll', first as never).catch((e) => e);
    expect(strict).toBeInstanceOf(ConnectorError);
    expect((strict as ConnectorError).message).toContain(bad);
    expect((strict as ConnectorError).message).toMatch(/Customers\[\d\]\.Classifications\[0\]/);
  });
});
