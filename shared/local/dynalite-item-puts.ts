import type { Server } from 'node:http';
import type { ItemPuts } from '../state/item-puts.ts';
import { serviceErrorOf } from './direct-document-client.ts';
import {
  type DynaliteDbModule,
  type DynaliteStore,
  type DynaliteTable,
  isBlindWrite,
  type LevelWrite,
  lockAndWrite,
} from './dynalite-blind-writes.ts';
import { closedStoreError, dynaliteOpen } from './dynalite-in-process.ts';
import { dynaliteItemJson } from './dynalite-item-json.ts';
import { dynaliteStoreOf } from './dynalite-objects.ts';
import { requireFromDynalite } from './dynalite-require.ts';
import { storeFailureAnswer } from './dynalite-store-failures.ts';

/** A table's description as far as the key of an item is read from it. */
interface KeyedTable extends DynaliteTable {
  KeySchema: ReadonlyArray<{ AttributeName: string }>;
}

/** The store's options as far as these puts read them (dynalite's item size limit, in bytes). */
interface StoreWithOptions extends DynaliteStore {
  options: { maxItemSize: number };
}

/** A key attribute's value as dynalite's key functions take it; undefined for another type. */
function keyAttribute(value: unknown): Record<string, string> | undefined {
  if (typeof value === 'string') return { S: value };
  if (typeof value === 'number' && Number.isSafeInteger(value)) return { N: String(value) };
  if (value instanceof Uint8Array)
    return { B: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
  return undefined;
}

/** Whether `text` takes more than `limit` bytes in UTF-8 (at most 3 a UTF-16 unit). */
function utf8BytesAbove(text: string, limit: number): boolean {
  return text.length * 3 > limit && Buffer.byteLength(text) > limit;
}

/**
 * The LevelDB puts of `items` in `table`, each its JSON text under its key; undefined when one
 * is not taken (see {@link ItemPuts}). A JSON text within the size limit holds an item within
 * it (DynamoDB counts names and values, not the JSON around them).
 */
function levelPutsOf(
  db: DynaliteDbModule,
  store: StoreWithOptions,
  table: KeyedTable,
  items: readonly Record<string, unknown>[],
): LevelWrite[] | undefined {
  const writes: LevelWrite[] = [];
  const keys = new Set<string>();
  for (const item of items) {
    const json = dynaliteItemJson(item);
    if (json === undefined || utf8BytesAbove(json, store.options.maxItemSize)) return undefined;
    const keyItem: Record<string, Record<string, string>> = {};
    for (const { AttributeName } of table.KeySchema) {
      const attribute = keyAttribute(item[AttributeName]);
      if (attribute === undefined) return undefined;
      keyItem[AttributeName] = attribute;
    }
    if (db.validateItem(keyItem, table) != null) return undefined;
    const key = db.createKey(keyItem, table);
    if (keys.has(key)) return undefined;
    keys.add(key);
    writes.push({ type: 'put', key, value: json, valueEncoding: 'utf8' });
  }
  return writes;
}

/**
 * The {@link ItemPuts} of the dynalite store of `server` (in this process): a batch of items is
 * written as its JSON text, under its keys' locks, as ONE LevelDB batch. The same items, keys
 * and locks as dynalite's BatchWriteItem of blind writes (dynalite-blind-writes.ts), without the
 * steps between: marshalling each item into attribute-value objects, dynalite's checks of them
 * (every value the writer makes is one dynalite takes; keys are checked by dynalite's own
 * function), batches of 25, and the database's JSON encoding of the objects. A page of 1,000
 * customers' snapshots took ~30 µs of the main thread a snapshot through BatchWriteItem, ~22 µs
 * this way (docs/benchmarks.md). A failure of the store is answered as dynalite's actions answer
 * it (an InternalServerError; a stuck store reopened), a closed store as a refused connection.
 */
export function dynaliteItemPuts(server: Server): ItemPuts {
  const store = dynaliteStoreOf(server) as StoreWithOptions | undefined;
  if (store === undefined) throw new Error('no dynalite store noted for this server');
  const db = requireFromDynalite('./db') as DynaliteDbModule;
  return {
    put: (tableName, items) =>
      new Promise((resolve, reject) => {
        if (!dynaliteOpen(server)) return reject(closedStoreError());
        if (items.length === 0) return resolve(true);
        store.getTable(tableName, (error, table) => {
          if (error || !isBlindWrite({ TableName: tableName }, table)) return resolve(false);
          const writes = levelPutsOf(db, store, table as KeyedTable, items);
          if (writes === undefined) return resolve(false);
          lockAndWrite([{ itemDb: store.getItemDb(tableName), writes }], (failure) => {
            if (!failure) return resolve(true);
            const answer = storeFailureAnswer(store, failure);
            reject(serviceErrorOf(answer.statusCode, answer.body, undefined));
          });
        });
      }),
  };
}
