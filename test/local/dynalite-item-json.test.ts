import { marshall } from '@aws-sdk/util-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dynaliteItemJson } from '../../shared/local/dynalite-item-json.ts';
import { toSnapshotItem } from '../../shared/state/dynamodb-items.ts';
import { prepareSnapshots } from '../../shared/state/prepare-snapshots.ts';

/** What dynalite stores for `item` on the SDK's path: marshall's attribute values, bytes as base64. */
function marshalledJson(item: Record<string, unknown>): string {
  return JSON.stringify(
    marshall(item, { removeUndefinedValues: true, convertTopLevelContainer: false }),
    // The holder's own value: a Buffer reaches a replacer already turned into its toJSON.
    function base64(this: Record<string, unknown>, key: string, value: unknown) {
      const raw = this[key];
      return raw instanceof Uint8Array ? Buffer.from(raw).toString('base64') : value;
    },
  );
}

const tricky = [
  'plain',
  '',
  'quote " backslash \\ slash /',
  'line\nbreak\ttab\u0000nul\u001f',
  'Ærøskøbing Δελφοί 東京 🏨',
  'lone \ud800 surrogate',
  '</script>\u2028\u2029',
];

describe('the JSON text dynalite stores for an item, written straight from the item', () => {
  it('is what the SDK marshalling gives, for a snapshot item with every optional member', () => {
    const [prepared] = prepareSnapshots('conn:customer', [
      {
        entityId: 'c-1',
        hash: 'a'.repeat(64),
        updatedAt: 1_764_954_964_852,
        record: { Id: 'c-1', Notes: tricky.join(' | '), Tags: ['vip', null], Nested: { n: 1 } },
        scope: { enterpriseId: 'e-1', chainId: 'ch-1' },
        deleted: true,
        expiresAt: 1_767_000_000,
        unconfirmed: [{ id: 'ev-1', type: 'customer.updated' }],
      },
    ]);
    const text = toSnapshotItem('conn:customer', prepared!, Number.POSITIVE_INFINITY);
    const deflated = toSnapshotItem('conn:customer', prepared!, 10);
    for (const item of [text, deflated]) {
      const json = dynaliteItemJson(item);
      expect(json).toBeDefined();
      expect(JSON.parse(json!)).toEqual(JSON.parse(marshalledJson(item)));
    }
    expect(deflated.recordZ).toBeInstanceOf(Uint8Array);
  });

  it('writes strings as JSON.stringify does, whatever characters they hold', () => {
    for (const value of tricky) {
      const item = { pk: 'p', value };
      expect(dynaliteItemJson(item)).toBe(marshalledJson(item));
    }
  });

  it('drops undefined members, in maps and lists too, as marshall with removeUndefinedValues does', () => {
    const item = {
      pk: 'p',
      gone: undefined,
      map: { kept: 1, gone: undefined },
      list: [1, undefined, 'x'],
    };
    expect(dynaliteItemJson(item)).toBe(marshalledJson(item));
    expect(dynaliteItemJson(item)).toBe(
      '{"pk":{"S":"p"},"map":{"M":{"kept":{"N":"1"}}},"list":{"L":[{"N":"1"},{"S":"x"}]}}',
    );
  });

  it('matches marshall for any item of strings, numbers, booleans, null, bytes, lists and maps', () => {
    const name = fc
      .string({ minLength: 1 })
      .filter((text) => text !== '__proto__' && text !== 'constructor');
    const value = fc.letrec((tie) => ({
      leaf: fc.oneof(
        fc.string({ unit: 'binary' }),
        fc.maxSafeInteger(),
        fc
          .double({ noNaN: true, min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER })
          .filter((n) => !String(n).includes('e')),
        fc.boolean(),
        fc.constant(null),
        fc.uint8Array({ maxLength: 20 }),
      ),
      list: fc.array(tie('node'), { maxLength: 4 }),
      map: fc.dictionary(name, tie('node'), { maxKeys: 4 }),
      node: fc.oneof({ depthSize: 'small' }, tie('leaf'), tie('list'), tie('map')),
    }));
    fc.assert(
      fc.property(fc.dictionary(name, value.node), (item) => {
        const json = dynaliteItemJson(item);
        expect(json).toBeDefined();
        expect(JSON.parse(json!)).toEqual(JSON.parse(marshalledJson(item)));
      }),
      { numRuns: 300 },
    );
  });

  it('leaves to the SDK what it does not write: sets, maps, bigints, unsafe and special numbers, numbers String writes with an exponent (dynalite stores them without), class instances, functions', () => {
    class Money {
      amount = 1;
    }
    for (const value of [
      new Set(['a']),
      new Map([['a', 1]]),
      10n,
      1e-200,
      1e-7,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      2 ** 53,
      new Money(),
      new Date(0),
      () => 1,
      new Int16Array(2),
    ]) {
      expect(dynaliteItemJson({ pk: 'p', value })).toBeUndefined();
      expect(dynaliteItemJson({ pk: 'p', nested: { list: [value] } })).toBeUndefined();
    }
  });

  it('leaves to the SDK members named `constructor` (which it refuses) and `__proto__` (which it drops)', () => {
    const withConstructor = { pk: 'p', nested: { constructor: {} } };
    expect(() => marshalledJson(withConstructor)).toThrow('Unsupported type');
    expect(dynaliteItemJson(withConstructor)).toBeUndefined();
    const withProto = JSON.parse('{"pk":"p","nested":{"__proto__":"x"}}') as Record<
      string,
      unknown
    >;
    expect(marshalledJson(withProto)).toBe('{"pk":{"S":"p"},"nested":{"M":{}}}');
    expect(dynaliteItemJson(withProto)).toBeUndefined();
  });
});
