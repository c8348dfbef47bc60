import type { Server } from 'node:http';
import type { ItemPuts } from '../state/item-puts.ts';
import { serviceErrorOf } from './direct-document-client.ts';
import {
  type DynaliteDbModule,
  type DynaliteStore,
  isBlindWrite,
  type LevelWrite,
  lockAndWrite,
} from './dynalite-blind-writes.ts';
import { closedStoreError, dynaliteOpen } from './dynalite-in-process.ts';
import { base64Of, dynaliteItemJson } from './dynalite-item-json.ts';
import { DynaliteItemKeys, type KeyedTable, type KeyItem } from './dynalite-item-keys.ts';
import { dynaliteStoreOf } from './dynalite-objects.ts';
import { requireFromDynalite } from './dynalite-require.ts';
import { storeFailureAnswer } from './dynalite-store-failures.ts';

/** The store's options as far as these puts read them (dynalite's item size limit, in bytes). */
interface StoreWithOptions extends DynaliteStore {
  options: { maxItemSize: number };
}

/** A key attribute's value as dynalite's key functions take it; undefined for another type. */
function keyAttribute(value: unknown): Record<string, string> | undefined {
  if (typeof value === 'string') return { S: value };
  if (typeof value === 'number' && Number.isSafeInteger(value)) return { N: String(value) };
  if (value instanceof Uint8Array) return { B: base64Of(value) };
  return undefined;
}

/**
 * Items written in one LevelDB batch at most: a page's thousand snapshots as one batch held
 * their JSON texts (~4 MB) until LevelDB had copied them all; an emitting backfill of 100,000
 * customers peaked at 292-297 MB that way, against 280-282 MB in batches of 100.
 */
export const ITEM_PUTS_PER_LEVEL_BATCH = 100;

/**
 * The LevelDB puts of `items` in `table`, each its JSON text's UTF-8 bytes under its key (by
 * `itemKeys`, the table's); undefined when one is not taken (see {@link ItemPuts}) or its key
 * is in `keys` (the keys written so far, which this adds to). A JSON text within the size
 * limit holds an item within it (DynamoDB counts names and values, not the JSON around them).
 */
function levelPutsOf(
  db: DynaliteDbModule,
  store: StoreWithOptions,
  table: KeyedTable,
  itemKeys: DynaliteItemKeys,
  items: readonly Record<string, unknown>[],
  keys: Set<string>,
): LevelWrite[] | undefined {
  const writes: LevelWrite[] = [];
  const partKeys = new Set<string>();
  for (const item of items) {
    const json = dynaliteItemJson(item);
    if (json === undefined) return undefined;
    // As bytes: LevelDB copies a string's UTF-8 too, but flattens the text first, and the flat
    // copy, kept by the batch until the write ends, outlived the young generation.
    const bytes = Buffer.from(json, 'utf8');
    if (bytes.length > store.options.maxItemSize) return undefined;
    const keyItem: KeyItem = {};
    for (const { AttributeName } of table.KeySchema) {
      const attribute = keyAttribute(item[AttributeName]);
      if (attribute === undefined) return undefined;
      keyItem[AttributeName] = attribute;
    }
    if (db.validateItem(keyItem, table) != null) return undefined;
    const key = itemKeys.keyOf(keyItem);
    // A key twice in one batch would also wait on its own lock for ever.
    if (keys.has(key) || partKeys.has(key)) return undefined;
    partKeys.add(key);
    writes.push({ type: 'put', key, value: bytes, valueEncoding: 'buffer' });
  }
  for (const key of partKeys) keys.add(key);
  return writes;
}

/** The table `tableName` when items can be put into it blind; undefined otherwise. */
function blindTable(store: StoreWithOptions, tableName: string): Promise<KeyedTable | undefined> {
  return new Promise((resolve) =>
    store.getTable(tableName, (error, table) =>
      resolve(
        error || !isBlindWrite({ TableName: tableName }, table) ? undefined : (table as KeyedTable),
      ),
    ),
  );
}

/**
 * The {@link ItemPuts} of the dynalite store of `server` (in this process): items are written
 * as their JSON text, under their keys' locks, {@link ITEM_PUTS_PER_LEVEL_BATCH} to a LevelDB
 * batch, each batch handed over as soon as it is made. The same items, keys and locks as
 * dynalite's BatchWriteItem of blind writes (dynalite-blind-writes.ts), without the steps
 * between: marshalling each item into attribute-value objects, dynalite's checks of them (every
 * value the writer makes is one dynalite takes; keys are checked by dynalite's own function),
 * and the database's JSON encoding of the objects. A page of 1,000 customers' snapshots took
 * ~30 µs of the main thread a snapshot through BatchWriteItem, ~22 µs this way
 * (docs/benchmarks.md). A batch holding an item not taken is left, with the rest, to
 * BatchWriteItem. A failure of the store is answered as dynalite's actions answer it (an
 * InternalServerError; a stuck store reopened), a closed store as a refused connection.
 */
export function dynaliteItemPuts(server: Server): ItemPuts {
  const store = dynaliteStoreOf(server) as StoreWithOptions | undefined;
  if (store === undefined) throw new Error('no dynalite store noted for this server');
  const db = requireFromDynalite('./db') as DynaliteDbModule;
  const write = (tableName: string, writes: LevelWrite[]) =>
    new Promise<void>((resolve, reject) =>
      lockAndWrite([{ itemDb: store.getItemDb(tableName), writes }], (failure) => {
        if (!failure) return resolve();
        const answer = storeFailureAnswer(store, failure);
        reject(serviceErrorOf(answer.statusCode, answer.body, undefined));
      }),
    );
  return {
    async put(tableName, items) {
      if (!dynaliteOpen(server)) throw closedStoreError();
      if (items.length === 0) return items;
      const table = await blindTable(store, tableName);
      if (table === undefined) return items;
      if (!dynaliteOpen(server)) throw closedStoreError();
      const keys = new Set<string>();
      const itemKeys = new DynaliteItemKeys(db, table);
      // Each batch is handed to LevelDB (which copies it) before the next one's texts are made,
      // without waiting for its write: a part's texts are garbage as the next is made.
      const written: Promise<void>[] = [];
      for (let from = 0; from < items.length; from += ITEM_PUTS_PER_LEVEL_BATCH) {
        const part = items.slice(from, from + ITEM_PUTS_PER_LEVEL_BATCH);
        const writes = levelPutsOf(db, store, table, itemKeys, part, keys);
        if (writes === undefined) {
          await Promise.all(written);
          return items.slice(from);
        }
        written.push(write(tableName, writes));
      }
      await Promise.all(written);
      return [];
    },
  };
}
