import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../shared/clock.ts';
import type { Limitation } from '../../shared/connector/records/index.ts';
import { EntitySet, type Entry } from '../../shared/simulator/entity-set.ts';
import { inInterval, pageOf } from '../../shared/simulator/query.ts';
import { iso, SimRandom } from '../../shared/simulator/sim-random.ts';

interface Row {
  Id: string;
}

/**
 * A set whose records were inserted with update times out of order (as a generated dataset's
 * are), then updated, soft-deleted and hard-deleted at later, rising times (as activity does).
 */
function churnedSet(seed: number) {
  const random = new SimRandom(seededRandom(seed));
  const set = new EntitySet<Row>((row) => row.Id);
  for (let i = 0; i < 400; i++)
    set.insert(
      { Id: `r${i}` },
      { enterpriseId: null, chainId: `ch${i % 2}`, createdMs: i, updatedMs: random.int(0, 10_000) },
    );
  let now = 10_000;
  for (let step = 0; step < 600; step++) {
    now += random.int(0, 20);
    const entry = set.get(`r${random.int(0, 399)}`);
    if (!entry) continue;
    const action = random.int(0, 9);
    if (action === 0) set.remove(entry.record.Id);
    else {
      if (action === 1) entry.deletedMs = now;
      set.touch(entry, now);
    }
  }
  return { set, random, now };
}

const ids = (entries: readonly Entry<Row>[]) => entries.map((entry) => entry.record.Id);

describe('a page of an update window', () => {
  it('is the same found by update time as by walking the set, page after page', () => {
    for (let seed = 1; seed <= 5; seed++) {
      const { set, random, now } = churnedSet(seed);
      for (let query = 0; query < 40; query++) {
        const start = random.int(0, now);
        const window = {
          StartUtc: iso(start),
          ...(random.chance(0.8) ? { EndUtc: iso(start + random.int(1, 400)) } : {}),
        };
        const keep = (entry: Entry<Row>) =>
          inInterval(entry.updatedMs, window) && (entry.chainId === 'ch0' || random.chance(0.5));
        // One decision per record, so both reads keep the same records.
        const kept = new Map<Entry<Row>, boolean>();
        const decided = (entry: Entry<Row>) => {
          if (!kept.has(entry)) kept.set(entry, keep(entry));
          return kept.get(entry)!;
        };
        let cursor: string | null = null;
        for (let page = 0; page < 5; page++) {
          const limitation: Limitation = { Count: random.int(1, 8), Cursor: cursor };
          const walked: Entry<Row>[] = pageOf(set, limitation, decided);
          const found = pageOf(set, limitation, decided, undefined, undefined, window);
          expect(ids(found)).toEqual(ids(walked));
          if (walked.length < limitation.Count) break;
          cursor = walked.at(-1)!.record.Id;
        }
      }
    }
  });

  it('finds a record at its latest update time only, and never one hard-deleted', () => {
    const set = new EntitySet<Row>((row) => row.Id);
    const meta = { enterpriseId: null, chainId: 'ch0', createdMs: 0 };
    const a = set.insert({ Id: 'a' }, { ...meta, updatedMs: 100 });
    set.insert({ Id: 'b' }, { ...meta, updatedMs: 100 });
    set.touch(a, 500);
    set.remove('b');
    expect(set.updatedWithin(0, 200, 10)).toEqual([]);
    expect(ids(set.updatedWithin(400, 600, 10)!)).toEqual(['a']);
    // More than asked for: undefined (the caller walks instead).
    expect(set.updatedWithin(0, 1000, 0)).toBeUndefined();
  });

  it('counts the update marks in a window before going through them: more than twice what is asked for, and the caller walks', () => {
    const set = new EntitySet<Row>((row) => row.Id);
    const meta = { enterpriseId: null, chainId: 'ch0', createdMs: 0 };
    const a = set.insert({ Id: 'a' }, { ...meta, updatedMs: 100 });
    // Four marks in [100, 200): three left behind by later touches, one current.
    for (const ms of [110, 120, 130]) set.touch(a, ms);
    expect(ids(set.updatedWithin(100, 200, 2)!)).toEqual(['a']);
    expect(set.updatedWithin(100, 200, 1)).toBeUndefined();
    // The marks outside the window do not count.
    expect(ids(set.updatedWithin(130, 131, 1)!)).toEqual(['a']);
  });
});
