import { createRequire } from 'node:module';
import { requireFromDynalite, resolveFromDynalite } from './dynalite-require.ts';

type Callback = (error: Error | null, value?: unknown) => void;
type Release = (cb: Callback) => Callback;

/** A PutItem or DeleteItem request as dynalite's actions receive it (validated, parsed). */
export interface DynaliteWrite {
  TableName: string;
  Item?: Record<string, unknown>;
  Key?: Record<string, unknown>;
  /** The parsed ConditionExpression. */
  _condition?: unknown;
  Expected?: unknown;
  ReturnValues?: string;
  ReturnConsumedCapacity?: string;
}

/** A table description as far as this module reads it. */
export interface DynaliteTable {
  LocalSecondaryIndexes?: readonly unknown[];
  GlobalSecondaryIndexes?: readonly unknown[];
}

/**
 * A write of a LevelDB batch, as dynalite's item databases take it (the key unprefixed). A put's
 * value is the item, written as JSON by the database; or its JSON text already, as a string
 * with `valueEncoding: 'utf8'` or as its UTF-8 bytes with `valueEncoding: 'buffer'` (see
 * dynalite-item-puts.ts).
 */
export type LevelWrite =
  | { type: 'put'; key: string; value: unknown; valueEncoding?: 'utf8' | 'buffer' }
  | { type: 'del'; key: string };

/** An item database of dynalite's (one per table), as far as these writes use it. */
export interface ItemDb {
  lock(key: string | string[], run: (release: Release) => void): void;
  put(key: string, item: unknown, cb: Callback): void;
  del(key: string, cb: Callback): void;
  batch(writes: LevelWrite[], cb: Callback): void;
}

/** A BatchWriteItem request as dynalite's action receives it (validated, parsed). */
export interface DynaliteBatchWrite {
  RequestItems: Record<
    string,
    ReadonlyArray<{
      PutRequest?: { Item: Record<string, unknown> };
      DeleteRequest?: { Key: Record<string, unknown> };
    }>
  >;
  ReturnConsumedCapacity?: string;
}

/** dynalite's store (its `db.create`'s), as far as these writes use it. */
export interface DynaliteStore {
  getTable(name: string, cb: (error: Error | null, table: DynaliteTable) => void): void;
  getItemDb(name: string): ItemDb;
}

/** dynalite's `db` module, as far as these writes use it. */
export interface DynaliteDbModule {
  validateItem(item: unknown, table: DynaliteTable): Error | null | undefined;
  validateKey(key: unknown, table: DynaliteTable): Error | null | undefined;
  createKey(item: unknown, table: DynaliteTable): string;
}

type Action = (store: DynaliteStore, data: DynaliteWrite, cb: Callback) => void;
type BatchAction = (store: DynaliteStore, data: DynaliteBatchWrite, cb: Callback) => void;

/**
 * Whether a put or delete of `table` can be written without reading the item it replaces:
 * nothing of the answer or of the write depends on it (no condition, no old values or
 * consumed capacity asked for, no secondary index to update). Pure.
 * @example isBlindWrite({ TableName: 't' }, {}) === true
 */
export function isBlindWrite(data: DynaliteWrite, table: DynaliteTable): boolean {
  return (
    data._condition === undefined &&
    data.Expected === undefined &&
    (data.ReturnValues === undefined || data.ReturnValues === 'NONE') &&
    (data.ReturnConsumedCapacity === undefined || data.ReturnConsumedCapacity === 'NONE') &&
    (table.LocalSecondaryIndexes?.length ?? 0) === 0 &&
    (table.GlobalSecondaryIndexes?.length ?? 0) === 0
  );
}

const patched = Symbol.for('change-bridge.dynaliteBlindWrites');

/**
 * The LevelDB write of a put of `item` or a delete of `key` in `table`, or the error dynalite's
 * own validation answers it with.
 */
function levelWriteOf(
  db: DynaliteDbModule,
  table: DynaliteTable,
  request: { item?: Record<string, unknown>; key?: Record<string, unknown> },
): LevelWrite | Error {
  const { item, key } = request;
  const invalid = item ? db.validateItem(item, table) : db.validateKey(key, table);
  if (invalid != null) return invalid;
  const levelKey = db.createKey(item ?? key, table);
  return item ? { type: 'put', key: levelKey, value: item } : { type: 'del', key: levelKey };
}

/** One table's part of a batch: its item database and its writes, in request order. */
export interface TableWrites {
  itemDb: ItemDb;
  writes: LevelWrite[];
}

/**
 * The LevelDB writes of a BatchWriteItem whose every request is a {@link isBlindWrite blind
 * write} and valid, by table in name order; `undefined` when any is not (or a key repeats), for
 * dynalite's own action to answer as it does.
 */
function blindBatchWrites(
  store: DynaliteStore,
  db: DynaliteDbModule,
  data: DynaliteBatchWrite,
  tables: ReadonlyMap<string, DynaliteTable>,
): TableWrites[] | undefined {
  const byTable: TableWrites[] = [];
  for (const name of [...tables.keys()].sort()) {
    const table = tables.get(name)!;
    if (
      !isBlindWrite({ TableName: name, ReturnConsumedCapacity: data.ReturnConsumedCapacity }, table)
    )
      return undefined;
    const writes: LevelWrite[] = [];
    const seen = new Set<string>();
    for (const request of data.RequestItems[name] ?? []) {
      const item = request.PutRequest?.Item;
      const key = request.DeleteRequest?.Key;
      if (item === undefined && key === undefined) return undefined;
      const write = levelWriteOf(db, table, { item, key });
      if (write instanceof Error || seen.has(write.key)) return undefined;
      seen.add(write.key);
      writes.push(write);
    }
    byTable.push({ itemDb: store.getItemDb(name), writes });
  }
  return byTable;
}

/** Looks up every table of `names`; the first error, if any. */
function getTables(
  store: DynaliteStore,
  names: readonly string[],
  cb: (error: Error | null, tables: Map<string, DynaliteTable>) => void,
): void {
  const tables = new Map<string, DynaliteTable>();
  let left = names.length;
  let failed = false;
  if (left === 0) {
    cb(null, tables);
    return;
  }
  for (const name of names)
    store.getTable(name, (error, table) => {
      if (failed) return;
      if (error) {
        failed = true;
        return cb(error, tables);
      }
      tables.set(name, table);
      if (--left === 0) cb(null, tables);
    });
}

/**
 * Locks the keys of every table (tables in name order; each table's keys at once, which the
 * lock queues in one go, so two batches never wait on each other), then writes each table's
 * items as one LevelDB batch, then releases them all.
 */
export function lockAndWrite(tables: readonly TableWrites[], done: Callback): void {
  const releases: Release[] = [];
  const lockFrom = (index: number): void => {
    const part = tables[index];
    if (part === undefined) {
      writeAll();
      return;
    }
    // The lock never calls back for no keys.
    if (part.writes.length === 0) {
      lockFrom(index + 1);
      return;
    }
    part.itemDb.lock(
      part.writes.map((write) => write.key),
      (release) => {
        releases.push(release);
        lockFrom(index + 1);
      },
    );
  };
  const writeAll = (): void => {
    let left = tables.length;
    let failure: Error | null = null;
    const settled = (error: Error | null) => {
      failure ??= error;
      if (--left > 0) return;
      const finish = releases.reduceRight<Callback>((next, release) => release(next), done);
      finish(failure, failure ? undefined : { UnprocessedItems: {} });
    };
    for (const part of tables)
      if (part.writes.length > 0) part.itemDb.batch(part.writes, settled);
      else settled(null);
  };
  lockFrom(0);
}

/**
 * dynalite's batchWriteItem, but a batch whose every request is a blind write takes its keys'
 * locks and writes each table's items as ONE LevelDB batch: dynalite runs a putItem (its own
 * table lookup, validation, lock, read of the old item and LevelDB put) per request. Anything
 * else (consumed capacity asked for, an index, an invalid request) goes to dynalite's action,
 * which answers as before. The answer of a blind batch is dynalite's: no unprocessed items.
 */
function withBlindBatches(action: BatchAction): BatchAction {
  const db = requireFromDynalite('./db') as DynaliteDbModule;
  return function batchWriteBlindWhenPossible(store, data, cb) {
    getTables(store, Object.keys(data.RequestItems), (error, tables) => {
      if (error) return action(store, data, cb);
      const writes = blindBatchWrites(store, db, data, tables);
      if (writes === undefined) return action(store, data, cb);
      lockAndWrite(writes, cb);
    });
  };
}

/**
 * `action` (dynalite's putItem or deleteItem), but a {@link isBlindWrite blind write} takes the
 * item's lock and writes, without the read of the item it replaces that dynalite makes for
 * every write (a LevelDB read and a JSON parse of the old item, whose result nothing then uses).
 * Validation, the lock and the answer (`{}`) are dynalite's own.
 */
function withBlindWrites(action: Action, kind: 'put' | 'delete'): Action {
  const db = requireFromDynalite('./db') as DynaliteDbModule;
  return function writeWithoutReading(store, data, cb) {
    store.getTable(data.TableName, (error, table) => {
      if (error || !isBlindWrite(data, table)) return action(store, data, cb);
      const write = levelWriteOf(
        db,
        table,
        kind === 'put' ? { item: data.Item } : { key: data.Key },
      );
      if (write instanceof Error) return cb(write);
      const itemDb = store.getItemDb(data.TableName);
      itemDb.lock(write.key, (release) => {
        const done = release(cb);
        const answer: Callback = (failed) => (failed ? done(failed) : done(null, {}));
        if (write.type === 'put') itemDb.put(write.key, write.value, answer);
        else itemDb.del(write.key, answer);
      });
    });
  };
}

/**
 * Makes dynalite (4.0) write items without first reading the ones they replace when nothing
 * needs them ({@link isBlindWrite}): every PutItem, DeleteItem and BatchWriteItem request of the
 * bridge's tables; a BatchWriteItem's items go to LevelDB as one batch per table. A CPU profile
 * of a first sync of 100,000 customers through `change-bridge start` spent 8 % of the main
 * thread in those reads. Must run before dynalite's request handler and BatchWriteItem load
 * their actions (they keep the functions they required); the local DynamoDB applies it before
 * it loads dynalite. Idempotent.
 */
export function writeBlindWhenPossible(): void {
  const loadedModules = createRequire(import.meta.url).cache;
  const replace = <Original>(name: string, replacement: (action: Original) => object): void => {
    const action = requireFromDynalite(name) as Original & { [patched]?: true };
    const loaded = loadedModules[resolveFromDynalite(name)];
    if (action[patched] || loaded === undefined) return;
    loaded.exports = Object.assign(replacement(action), { [patched]: true as const });
  };
  replace('./actions/putItem', (action: Action) => withBlindWrites(action, 'put'));
  replace('./actions/deleteItem', (action: Action) => withBlindWrites(action, 'delete'));
  replace('./actions/batchWriteItem', (action: BatchAction) => withBlindBatches(action));
}
