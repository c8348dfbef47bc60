import type { DynaliteDbModule, DynaliteTable } from './dynalite-blind-writes.ts';

/** A table's description as far as the key of an item is read from it. */
export interface KeyedTable extends DynaliteTable {
  KeySchema: ReadonlyArray<{ AttributeName: string }>;
  AttributeDefinitions: ReadonlyArray<{ AttributeName: string; AttributeType: string }>;
}

/** A key item as dynalite's key functions take it: each key attribute's typed value. */
export type KeyItem = Record<string, Record<string, string>>;

/**
 * dynalite's LevelDB keys of a table's items (`createKey`), with the part a run of items of one
 * hash key share worked out once: `<MD5 prefix of the hash key>/<hash key in hex>/`, then the
 * range key in hex and `/`. A page's thousand snapshots share one hash key (their stream's),
 * and the MD5 and the conversions of the hash key were ~2 % of the main thread of an emitting
 * backfill. The first item of a hash key gets `createKey`'s own key (an event item's hash key is
 * its own); the second's is `createKey`'s too, and the part taken from it serves the next items
 * of that hash key once the key it makes matches. Tables whose key is not a string hash key and
 * a string range key always get `createKey`'s.
 */
export class DynaliteItemKeys {
  /** The names of the table's hash and range keys, when both are strings. */
  readonly #names: readonly [string, string] | undefined;
  #lastHash: string | undefined;
  /** The part of {@link #lastHash}, once worked out. */
  #hashPart: string | undefined;

  constructor(
    private readonly db: DynaliteDbModule,
    private readonly table: KeyedTable,
  ) {
    this.#names = stringKeyNames(table);
  }

  /** The LevelDB key of `keyItem`, a valid key of the table (`validateItem` passed). */
  keyOf(keyItem: KeyItem): string {
    const names = this.#names;
    const hash = names && keyItem[names[0]]?.S;
    const range = names && keyItem[names[1]]?.S;
    if (hash === undefined || range === undefined) return this.db.createKey(keyItem, this.table);
    if (hash === this.#lastHash && this.#hashPart !== undefined)
      return `${this.#hashPart}${hexOf(range)}/`;
    const key = this.db.createKey(keyItem, this.table);
    if (hash !== this.#lastHash) {
      this.#lastHash = hash;
      this.#hashPart = undefined;
      return key;
    }
    const rangePart = `${hexOf(range)}/`;
    const hashPart = key.slice(0, key.length - rangePart.length);
    if (`${hashPart}${rangePart}` === key) this.#hashPart = hashPart;
    return key;
  }
}

/** The names of a table's hash and range keys, when it has both and both are strings. */
function stringKeyNames(table: KeyedTable): [string, string] | undefined {
  const [hash, range, ...more] = table.KeySchema;
  if (hash === undefined || range === undefined || more.length > 0) return undefined;
  const typeOf = (name: string) =>
    table.AttributeDefinitions.find((definition) => definition.AttributeName === name)
      ?.AttributeType;
  return typeOf(hash.AttributeName) === 'S' && typeOf(range.AttributeName) === 'S'
    ? [hash.AttributeName, range.AttributeName]
    : undefined;
}

/** A string's UTF-8 bytes in lowercase hex, as dynalite writes a string key. */
function hexOf(text: string): string {
  return Buffer.from(text, 'utf8').toString('hex');
}
