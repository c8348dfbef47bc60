import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelope, type Harness, postRaw, startHarness } from './harness.ts';

/** `iso` (whole milliseconds, `…sss Z`) 100 ns later, as .NET writes seven digits of a second. */
const plus100ns = (ms: number) => new Date(ms).toISOString().replace('Z', '0001Z');
const iso = (ms: number) => new Date(ms).toISOString();
const HOUR = 3_600_000;

// A request's date-times may carry seven digits of a second (DateTimeSchema takes them), and
// Date.parse dropped those past the millisecond: a bound 100 ns after a record's time read as
// that time itself.
describe('date-times finer than a millisecond', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  async function customersUpdatedIn(id: string, startUtc: string, endUtc: string) {
    const answer = await postRaw(h.sim, 'customers/getAll', {
      ...envelope(h.sim),
      Limitation: { Count: 10 },
      Extent: { Customers: true },
      CustomerIds: [id],
      UpdatedUtc: { StartUtc: startUtc, EndUtc: endUtc },
    });
    expect(answer.status, answer.text).toBe(200);
    return (JSON.parse(answer.text) as { Customers: { Id: string }[] }).Customers.map((c) => c.Id);
  }

  it('keeps time filters half-open on the instant: StartUtc <= t < EndUtc', async () => {
    const entry = [...h.sim.controls.model.customers.all()].at(-1)!;
    const id = entry.record.Id;
    const t = entry.updatedMs;
    expect(entry.record.UpdatedUtc && Date.parse(entry.record.UpdatedUtc)).toBe(t);
    // t < t + 100 ns: in a window ending then, not in one starting then.
    expect(await customersUpdatedIn(id, iso(t - HOUR), plus100ns(t))).toEqual([id]);
    expect(await customersUpdatedIn(id, plus100ns(t), iso(t + HOUR))).toEqual([]);
    // Whole milliseconds as before.
    expect(await customersUpdatedIn(id, iso(t), iso(t + 1))).toEqual([id]);
    expect(await customersUpdatedIn(id, iso(t - HOUR), iso(t))).toEqual([]);
  });

  it('answers 400 for a time filter 100 ns longer than 3 months, 200 for exactly 3 months', async () => {
    const ask = (endUtc: string) =>
      postRaw(h.sim, 'paymentRequests/getAll', {
        ...envelope(h.sim),
        Limitation: { Count: 1 },
        UpdatedUtc: { StartUtc: '2026-01-01T00:00:00Z', EndUtc: endUtc },
      });
    expect((await ask('2026-04-01T00:00:00.0000000Z')).status).toBe(200);
    const longer = await ask('2026-04-01T00:00:00.0000001Z');
    expect(longer.status).toBe(400);
    expect(JSON.parse(longer.text).Message).toContain('UpdatedUtc.EndUtc');
  });

  it('refuses a products/getPricing time 100 ns after a day start (rule 1: exactly the boundary)', async () => {
    const world = h.sim.controls.model.world;
    const product = world.products.find((p) => p.EnterpriseId === world.enterprises[0]!.Id)!;
    const call = (first: string, last: string) =>
      postRaw(h.sim, 'products/getPricing', {
        ...envelope(h.sim),
        ProductId: product.Id,
        FirstTimeUnitStartUtc: first,
        LastTimeUnitStartUtc: last,
      });
    const exact = await call('2026-03-10T23:00:00Z', '2026-03-11T23:00:00Z');
    expect(exact.status, exact.text).toBe(200);
    // Seven digits that are all zero name the boundary itself.
    expect((await call('2026-03-10T23:00:00.0000000Z', '2026-03-11T23:00:00Z')).status).toBe(200);
    for (const [first, last, field] of [
      ['2026-03-10T23:00:00.0000001Z', '2026-03-11T23:00:00Z', 'FirstTimeUnitStartUtc'],
      ['2026-03-10T23:00:00Z', '2026-03-11T23:00:00.0009999Z', 'LastTimeUnitStartUtc'],
    ] as const) {
      const answer = await call(first, last);
      expect(answer.status, first + last).toBe(400);
      expect(JSON.parse(answer.text).Message).toMatch(new RegExp(`^${field}:`));
    }
  });
});
