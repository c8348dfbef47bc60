import type { DynaliteDbModule, DynaliteTable } from './dynalite-blind-writes.ts';

/** A table's description as far as the key of an item is read from it. */
export interface KeyedTable extends DynaliteTable {
  KeySchema: ReadonlyArray<{ AttributeName: string }>;
  AttributeDefinitions: ReadonlyArray<{ AttributeName: string; AttributeType: string }>;
}

/** A key item as dynalite's key functions take it: each key attribute's typed value. */
export type KeyItem = Record<string, Record<string, string>>;

/** Hash keys whose part of the LevelDB key is kept; past this many the kept ones are dropped. */
const HASH_PARTS_KEPT = 64;

/**
 * dynalite's LevelDB keys of a table's items (`createKey`), with the part each hash key makes
 * worked out once: `<MD5 prefix of the hash key>/<hash key in hex>/`, then the range key in hex
 * and `/`. A page's thousand snapshots share one hash key (their stream's), and the MD5 and the
 * conversions of the hash key were ~2 % of the main thread of an emitting backfill. Tables
 * whose key is not a string hash key and a string range key get `createKey`'s own key; so does
 * every hash key until the key made from its part has matched `createKey`'s for one item.
 */
export class DynaliteItemKeys {
  readonly #hashParts = new Map<string, string>();

  constructor(
    private readonly db: DynaliteDbModule,
    private readonly table: KeyedTable,
  ) {}

  /** The LevelDB key of `keyItem`, a valid key of the table (`validateItem` passed). */
  keyOf(keyItem: KeyItem): string {
    const parts = this.stringParts(keyItem);
    if (parts === undefined) return this.db.createKey(keyItem, this.table);
    const [hash, range] = parts;
    const known = this.#hashParts.get(hash);
    if (known !== undefined) return `${known}${hexOf(range)}/`;
    const key = this.db.createKey(keyItem, this.table);
    const hashPart = key.slice(0, key.length - hexOf(range).length - 1);
    if (`${hashPart}${hexOf(range)}/` !== key) return key;
    if (this.#hashParts.size >= HASH_PARTS_KEPT) this.#hashParts.clear();
    this.#hashParts.set(hash, hashPart);
    return key;
  }

  /** The hash and range keys' strings, when the table's key is two string attributes. */
  private stringParts(keyItem: KeyItem): [string, string] | undefined {
    const [hash, range, ...more] = this.table.KeySchema;
    if (hash === undefined || range === undefined || more.length > 0) return undefined;
    if (this.typeOf(hash.AttributeName) !== 'S' || this.typeOf(range.AttributeName) !== 'S')
      return undefined;
    const hashValue = keyItem[hash.AttributeName]?.S;
    const rangeValue = keyItem[range.AttributeName]?.S;
    return hashValue === undefined || rangeValue === undefined
      ? undefined
      : [hashValue, rangeValue];
  }

  private typeOf(attributeName: string): string | undefined {
    return this.table.AttributeDefinitions.find(
      (definition) => definition.AttributeName === attributeName,
    )?.AttributeType;
  }
}

/** A string's UTF-8 bytes in lowercase hex, as dynalite writes a string key. */
function hexOf(text: string): string {
  return Buffer.from(text, 'utf8').toString('hex');
}
