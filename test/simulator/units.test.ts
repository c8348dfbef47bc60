import { describe, expect, it } from 'vitest';
import { ManualClock, seededRandom } from '../../shared/clock.ts';
import { EntitySet } from '../../shared/simulator/entity-set.ts';
import { FaultInjector } from '../../shared/simulator/faults.ts';
import { SimRateLimiter } from '../../shared/simulator/rate-limit.ts';
import { dayStartsBetween, isLocalMidnight, localMidnightUtc } from '../../shared/time-zone.ts';

describe('pricing time units', () => {
  it('finds local midnight across DST changes', () => {
    expect(new Date(localMidnightUtc(2026, 3, 29, 'Europe/Prague')).toISOString()).toBe(
      '2026-03-28T23:00:00.000Z',
    );
    expect(new Date(localMidnightUtc(2026, 3, 30, 'Europe/Prague')).toISOString()).toBe(
      '2026-03-29T22:00:00.000Z',
    );
    expect(isLocalMidnight(Date.parse('2026-07-01T23:00:00Z'), 'Europe/London')).toBe(true);
    expect(isLocalMidnight(Date.parse('2026-07-01T00:00:00Z'), 'Europe/London')).toBe(false);
  });

  it('lists one start per local day, 23- and 25-hour days included', () => {
    const starts = dayStartsBetween(
      Date.parse('2026-10-23T22:00:00Z'),
      Date.parse('2026-10-26T23:00:00Z'),
      'Europe/Vienna',
    );
    expect(starts.map((s) => new Date(s).toISOString())).toEqual([
      '2026-10-23T22:00:00.000Z',
      '2026-10-24T22:00:00.000Z',
      '2026-10-25T23:00:00.000Z',
      '2026-10-26T23:00:00.000Z',
    ]);
  });
});

describe('SimRateLimiter', () => {
  it('allows N requests per sliding window per token and names the wait', async () => {
    const clock = new ManualClock(0);
    const limiter = new SimRateLimiter({ requests: 2, windowMs: 10_000 }, clock);
    expect(limiter.take('a')).toEqual({ allowed: true });
    await clock.advance(4_000);
    expect(limiter.take('a')).toEqual({ allowed: true });
    expect(limiter.take('a')).toEqual({ allowed: false, retryAfterSeconds: 6 });
    expect(limiter.take('b')).toEqual({ allowed: true });
    await clock.advance(6_000);
    expect(limiter.take('a')).toEqual({ allowed: true });
    expect(limiter.take('a')).toEqual({ allowed: false, retryAfterSeconds: 4 });
  });
});

describe('FaultInjector', () => {
  it('serves scripted faults first, then draws at the configured rate', () => {
    const faults = new FaultInjector({ script: ['drop', 'timeout'] }, seededRandom(1));
    expect([faults.next(), faults.next(), faults.next()]).toEqual(['drop', 'timeout', null]);
    faults.set({ rate: 0.5, kinds: ['internal'] });
    const draws = Array.from({ length: 1000 }, () => faults.next());
    const hits = draws.filter((d) => d === 'internal').length;
    expect(hits).toBeGreaterThan(400);
    expect(hits).toBeLessThan(600);
  });
});

describe('EntitySet', () => {
  it('keeps cursor positions of hard-deleted records and pages newest first', () => {
    const set = new EntitySet<{ Id: string }>((r) => r.Id);
    const meta = { enterpriseId: null, chainId: 'c', createdMs: 0, updatedMs: 0 };
    for (const id of ['a', 'b', 'c', 'd']) set.insert({ Id: id }, meta);
    set.remove('c');
    expect(set.get('c')).toBeUndefined();
    expect(set.locate('c')?.index).toBe(2);
    expect([...set.newestFirst(set.locate('c')!.index)].map((e) => e.record.Id)).toEqual([
      'b',
      'a',
    ]);
    expect([...set.newestFirst()].map((e) => e.record.Id)).toEqual(['d', 'b', 'a']);
    expect(set.size).toBe(3);
    expect(() => set.insert({ Id: 'a' }, meta)).toThrow(/duplicate/);
  });

  it('walks only the given enterprises or chains, in the order of the whole set', () => {
    const set = new EntitySet<{ Id: string }>((r) => r.Id);
    const enterprises = Array.from({ length: 20 }, (_, i) => `e${i}`);
    for (let i = 0; i < 400; i += 1) {
      const enterpriseId = i % 7 === 0 ? null : enterprises[(i * 13) % enterprises.length]!;
      const meta = { enterpriseId, chainId: `c${i % 3}`, createdMs: i, updatedMs: i };
      set.insert({ Id: `r${i}` }, meta);
    }
    for (let i = 0; i < 400; i += 11) set.remove(`r${i}`);
    const ids = (entries: Iterable<{ record: { Id: string } }>) =>
      [...entries].map((e) => e.record.Id);
    const filtered = (
      keep: (e: { enterpriseId: string | null; chainId: string }) => boolean,
      before?: number,
    ) => ids([...set.newestFirst(before)].filter(keep));
    for (const before of [undefined, 0, 1, 123, 399, 400, 10_000]) {
      // One enterprise, a few, and more than are merged list by list (the whole set is walked).
      for (const wanted of [['e3'], ['e1', 'e5', 'e5', 'nobody'], enterprises]) {
        expect(ids(set.newestFirstWithin({ enterpriseIds: wanted }, before))).toEqual(
          filtered((e) => wanted.includes(e.enterpriseId ?? ''), before),
        );
      }
      expect(ids(set.newestFirstWithin({ chainIds: ['c2', 'c0'] }, before))).toEqual(
        filtered((e) => e.chainId === 'c2' || e.chainId === 'c0', before),
      );
    }
    expect(ids(set.newestFirstWithin({ enterpriseIds: ['e3'] })).length).toBeGreaterThan(0);
  });
  it('keeps every other record in place, pages and cursors included, when records are purged', () => {
    const set = new EntitySet<{ Id: string }>((r) => r.Id);
    for (let i = 0; i < 400; i += 1) {
      const meta = { enterpriseId: `e${i % 3}`, chainId: 'c', createdMs: i, updatedMs: i };
      set.insert({ Id: `r${i}` }, meta);
    }
    set.remove('r5');
    // Enough purges that the arrays are compacted (a quarter of them and more).
    for (let i = 0; i < 300; i += 1) expect(set.purge(`r${i}`)).toBe(true);
    expect(set.purge('r0')).toBe(false);
    expect([set.size, set.insertedCount]).toEqual([100, 400]);
    // Purged entries leave the arrays in batches: at most a quarter of what they hold.
    expect(set.storedCount).toBeLessThanOrEqual(Math.ceil((100 * 4) / 3) + 16);
    expect(set.get('r0') ?? set.locate('r5')).toBeUndefined();
    const anchor = set.get('r350')!;
    expect(anchor.index).toBe(350);
    const ids = (entries: Iterable<{ record: { Id: string } }>) =>
      [...entries].map((e) => e.record.Id);
    const older = Array.from({ length: 50 }, (_, i) => `r${349 - i}`);
    expect(ids(set.newestFirst(anchor.index))).toEqual(older);
    expect(ids(set.page(() => true, 10, anchor.index))).toEqual(older.slice(0, 10));
    expect(ids(set.newestFirstWithin({ enterpriseIds: ['e1'] }, anchor.index))).toEqual(
      older.filter((id) => Number(id.slice(1)) % 3 === 1),
    );
    expect(ids(set.page(() => true, 5, anchor.index, { enterpriseIds: ['e2'] }))).toEqual(
      older.filter((id) => Number(id.slice(1)) % 3 === 2).slice(0, 5),
    );
    expect(ids(set.updatedWithin(0, 1000, 1000)!).sort()).toEqual(ids(set.all()).sort());
    set.insert({ Id: 'new' }, { enterpriseId: 'e0', chainId: 'c', createdMs: 400, updatedMs: 400 });
    expect(set.get('new')?.index).toBe(400);
    expect(ids(set.newestFirst()).slice(0, 2)).toEqual(['new', 'r399']);
  });
});
