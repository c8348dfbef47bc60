import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Customer } from '../../shared/connector/records/index.ts';
import { makeCustomer } from '../../shared/simulator/factories-guests.ts';
import { envelope, type Harness, interval, postRaw, startHarness } from './harness.ts';

describe('conformance: pagination rules 1-5 and time filters', () => {
  let h: Harness;
  let windowStart = 0;
  let windowEnd = 0;
  const created: string[] = [];

  beforeAll(async () => {
    h = await startHarness();
    // 2,500 customers created (and so updated) one second apart after the dataset.
    await h.clock.advance(60_000);
    windowStart = h.clock.now();
    for (let i = 0; i < 2500; i += 1) {
      const entry = createCustomer(h);
      created.push(entry);
      await h.clock.advance(1000);
    }
    windowEnd = h.clock.now();
  });
  afterAll(async () => {
    await h.close();
  });

  it('walks 2,500 customers in pages of 1,000, 1,000 and 500, newest first, without gaps or duplicates', async () => {
    const pages: { items: Customer[]; cursor: string | null; last: boolean }[] = [];
    for await (const page of h.client.paginate('customers/getAll', {
      Limitation: { Count: 1000 },
      Extent: { Customers: true },
      UpdatedUtc: interval(windowStart, windowEnd),
    })) {
      pages.push({ items: page.items, cursor: page.cursor, last: page.last });
    }
    expect(pages.map((p) => p.items.length)).toEqual([1000, 1000, 500]);
    const ids = pages.flatMap((p) => p.items.map((c) => c.Id));
    expect(ids).toEqual([...created].reverse());
    for (const page of pages) expect(page.cursor).toBe(page.items.at(-1)?.Id);
    const log = h.sim.controls.requestLog().filter((r) => r.operation === 'customers/getAll');
    expect(log.slice(-3).map((r) => [r.items, r.count])).toEqual([
      [1000, 1000],
      [1000, 1000],
      [500, 1000],
    ]);
  });

  it('keeps a walk stable while records of the window are updated between pages', async () => {
    const body = {
      Limitation: { Count: 1000 },
      Extent: { Customers: true },
      CreatedUtc: interval(windowStart, windowEnd),
    };
    const seen: string[] = [];
    let first = true;
    for await (const page of h.client.paginate('customers/getAll', body)) {
      seen.push(...page.items.map((c) => c.Id));
      if (first) {
        // Updating the newest and an unseen record must not shift the remaining pages.
        h.sim.controls.model.update(h.sim.controls.model.customers, 'customer', created.at(-1)!, {
          Occupation: 'Pilot',
        });
        h.sim.controls.model.update(h.sim.controls.model.customers, 'customer', created[10]!, {
          Occupation: 'Pilot',
        });
        first = false;
      }
    }
    expect(seen).toEqual([...created].reverse());
  });

  it('returns a null Cursor only when no data comes back (rule 4)', async () => {
    const empty = await h.client.customers.getAll({
      Limitation: { Count: 10 },
      Extent: { Customers: true },
      UpdatedUtc: interval(windowEnd + 1, windowEnd + 2),
    });
    expect(empty).toMatchObject({ Customers: [], Cursor: null });
    const noExtent = await h.client.customers.getAll({
      Limitation: { Count: 10 },
      Extent: { Customers: false },
      UpdatedUtc: interval(windowStart, windowEnd),
    });
    expect(noExtent.Customers).toEqual([]);
    expect('Cursor' in noExtent && noExtent.Cursor).toBeNull();
    const documentsOnly = await h.client.customers.getAll({
      Limitation: { Count: 1000 },
      Extent: { Customers: false, Documents: true },
      UpdatedUtc: interval(windowStart, windowEnd),
    });
    expect(documentsOnly.Documents?.length).toBeGreaterThan(0);
    expect(documentsOnly.Cursor).not.toBeNull();
  });

  it('treats time filters as half-open: StartUtc included, EndUtc excluded', async () => {
    const firstMs = windowStart;
    const atStart = await h.client.customers.getAll({
      Limitation: { Count: 10 },
      Extent: { Customers: true },
      CreatedUtc: interval(firstMs, firstMs + 1),
    });
    expect(atStart.Customers.map((c) => c.Id)).toEqual([created[0]]);
    const atEnd = await h.client.customers.getAll({
      Limitation: { Count: 10 },
      Extent: { Customers: true },
      CreatedUtc: interval(firstMs - 1000, firstMs),
    });
    expect(atEnd.Customers.map((c) => c.Id)).not.toContain(created[0]);
  });

  it('answers 400 for a cursor that identifies nothing and for an interval longer than 3 months', async () => {
    const badCursor = await postRaw(h.sim, 'customers/getAll', {
      ...envelope(h.sim),
      Limitation: { Count: 10, Cursor: '00000000-0000-4000-8000-000000000000' },
      Extent: { Customers: true },
      UpdatedUtc: interval(windowStart, windowEnd),
    });
    expect(badCursor.status).toBe(400);
    expect(JSON.parse(badCursor.text).Message).toContain('Limitation.Cursor');
    const tooLong = await postRaw(h.sim, 'customers/getAll', {
      ...envelope(h.sim),
      Limitation: { Count: 10 },
      Extent: { Customers: true },
      UpdatedUtc: { StartUtc: '2025-01-01T00:00:00Z', EndUtc: '2025-04-01T00:00:01Z' },
    });
    expect(tooLong.status).toBe(400);
    expect(JSON.parse(tooLong.text).Message).toContain('UpdatedUtc.EndUtc');
    const exactlyThree = await postRaw(h.sim, 'customers/getAll', {
      ...envelope(h.sim),
      Limitation: { Count: 10 },
      Extent: { Customers: true },
      UpdatedUtc: { StartUtc: '2025-01-01T00:00:00Z', EndUtc: '2025-04-01T00:00:00Z' },
    });
    expect(exactlyThree.status).toBe(200);
  });

  it('shows soft-deleted customers only with ActivityStates Deleted', async () => {
    const id = created[5]!;
    h.sim.controls.model.softDelete(h.sim.controls.model.customers, 'customer', id, {
      IsActive: false,
      ActivityState: 'Deleted',
    });
    const body = { Limitation: { Count: 10 }, Extent: { Customers: true }, CustomerIds: [id] };
    expect((await h.client.customers.getAll(body)).Customers).toEqual([]);
    const deleted = await h.client.customers.getAll({ ...body, ActivityStates: ['Deleted'] });
    expect(deleted.Customers.map((c) => [c.Id, c.IsActive])).toEqual([[id, false]]);
    const both = await h.client.customers.getAll({
      ...body,
      ActivityStates: ['Active', 'Deleted'],
    });
    expect(both.Customers).toHaveLength(1);
    const byDeletion = await h.client.customers.getAll({
      Limitation: { Count: 10 },
      Extent: { Customers: true },
      ActivityStates: ['Deleted'],
      DeletedUtc: interval(h.clock.now(), h.clock.now() + 1),
    });
    expect(byDeletion.Customers.map((c) => c.Id)).toEqual([id]);
  });
});

function createCustomer(h: Harness): string {
  const model = h.sim.controls.model;
  const now = h.clock.now();
  const record = makeCustomer(model, now, 100_000 + model.customers.storedCount);
  model.create(model.customers, 'customer', record, {
    enterpriseId: null,
    chainId: model.world.chainId,
    createdMs: now,
    updatedMs: now,
  });
  return record.Id;
}
