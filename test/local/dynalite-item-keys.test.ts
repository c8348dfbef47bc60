import { describe, expect, it, vi } from 'vitest';
import type { DynaliteDbModule } from '../../shared/local/dynalite-blind-writes.ts';
import { DynaliteItemKeys, type KeyedTable } from '../../shared/local/dynalite-item-keys.ts';
import { requireFromDynalite } from '../../shared/local/dynalite-require.ts';

const db = requireFromDynalite('./db') as DynaliteDbModule;

function tableOf(types: Record<string, string>): KeyedTable {
  return {
    KeySchema: Object.keys(types).map((AttributeName, index) => ({
      AttributeName,
      KeyType: index === 0 ? 'HASH' : 'RANGE',
    })),
    AttributeDefinitions: Object.entries(types).map(([AttributeName, AttributeType]) => ({
      AttributeName,
      AttributeType,
    })),
  };
}

const strings = tableOf({ pk: 'S', sk: 'S' });
const keyItem = (pk: string, sk: string) => ({ pk: { S: pk }, sk: { S: sk } });

describe("dynalite's item keys", () => {
  it("are createKey's own, for hash and range keys of every kind of string", () => {
    const keys = new DynaliteItemKeys(db, strings);
    const hashes = ['stream#conn-1#customer', 'Δελφοί 🏨', 'a/b'];
    const ranges = ['SNAP#c-1', 'SNAP#Jiří', 'EVENT#evt_01', '🏨/x', ''];
    for (const pk of hashes)
      for (const sk of ranges) {
        expect(keys.keyOf(keyItem(pk, sk))).toBe(db.createKey(keyItem(pk, sk), strings));
      }
  });

  it("work out the part of a run of one hash key's items once, then make their keys without createKey", () => {
    const createKey = vi.fn(db.createKey);
    const keys = new DynaliteItemKeys({ ...db, createKey }, strings);
    const made = Array.from({ length: 100 }, (_, index) =>
      keys.keyOf(keyItem('p', `SNAP#${index}`)),
    );
    keys.keyOf(keyItem('q', 'SNAP#0'));

    // The first two of p's items, and q's.
    expect(createKey).toHaveBeenCalledTimes(3);
    expect(made).toEqual(
      Array.from({ length: 100 }, (_, index) =>
        db.createKey(keyItem('p', `SNAP#${index}`), strings),
      ),
    );
  });

  it("are createKey's own when items of several hash keys come mixed", () => {
    const keys = new DynaliteItemKeys(db, strings);
    const items = ['p', 'p', 'q', 'p', 'p', 'p', 'q', 'q', 'q', 'p'].map((pk, index) =>
      keyItem(pk, `SNAP#${index}`),
    );
    expect(items.map((item) => keys.keyOf(item))).toEqual(
      items.map((item) => db.createKey(item, strings)),
    );
  });

  it('leave tables keyed otherwise to createKey', () => {
    const createKey = vi.fn(db.createKey);
    const numbers = tableOf({ pk: 'S', n: 'N' });
    const hashOnly = tableOf({ pk: 'S' });
    const numbered = new DynaliteItemKeys({ ...db, createKey }, numbers);
    const single = new DynaliteItemKeys({ ...db, createKey }, hashOnly);
    for (const n of ['1', '-2.5', '1000']) {
      const item = { pk: { S: 'p' }, n: { N: n } };
      expect(numbered.keyOf(item)).toBe(db.createKey(item, numbers));
    }
    expect(single.keyOf({ pk: { S: 'p' } })).toBe(db.createKey({ pk: { S: 'p' } }, hashOnly));
    expect(createKey).toHaveBeenCalledTimes(4);
  });
});
