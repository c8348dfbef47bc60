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

interface ItemDb {
  lock(key: string, run: (release: Release) => void): void;
  put(key: string, item: unknown, cb: Callback): void;
  del(key: string, cb: Callback): void;
}

interface DynaliteStore {
  getTable(name: string, cb: (error: Error | null, table: DynaliteTable) => void): void;
  getItemDb(name: string): ItemDb;
}

interface DynaliteDbModule {
  validateItem(item: unknown, table: DynaliteTable): Error | null | undefined;
  validateKey(key: unknown, table: DynaliteTable): Error | null | undefined;
  createKey(item: unknown, table: DynaliteTable): string;
}

type Action = (store: DynaliteStore, data: DynaliteWrite, cb: Callback) => void;

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
 * `action` (dynalite's putItem or deleteItem), but a {@link isBlindWrite blind write} takes the
 * item's lock and writes, without the read of the item it replaces that dynalite makes for
 * every write (a LevelDB read and a JSON parse of the old item, whose result nothing then uses).
 * Validation, the lock and the answer (`{}`) are dynalite's own.
 */
function withBlindWrites(action: Action, kind: 'put' | 'delete'): Action {
  const db = requireFromDynalite('./db') as DynaliteDbModule;
  return function writeBlindWhenPossible(store, data, cb) {
    store.getTable(data.TableName, (error, table) => {
      if (error || !isBlindWrite(data, table)) return action(store, data, cb);
      const item = kind === 'put' ? data.Item : data.Key;
      const invalid = kind === 'put' ? db.validateItem(item, table) : db.validateKey(item, table);
      if (invalid != null) return cb(invalid);
      const itemDb = store.getItemDb(data.TableName);
      const key = db.createKey(item, table);
      itemDb.lock(key, (release) => {
        const done = release(cb);
        const answer: Callback = (failed) => (failed ? done(failed) : done(null, {}));
        if (kind === 'put') itemDb.put(key, item, answer);
        else itemDb.del(key, answer);
      });
    });
  };
}

/**
 * Makes dynalite (4.0) write items without first reading the ones they replace when nothing
 * needs them ({@link isBlindWrite}): every PutItem, DeleteItem and BatchWriteItem request of the
 * bridge's tables. A CPU profile of a first sync of 100,000 customers through `change-bridge
 * start` spent 8 % of the main thread in those reads. Must run before dynalite's request
 * handler and BatchWriteItem load their actions (they keep the functions they required); the
 * local DynamoDB applies it before it loads dynalite. Idempotent.
 */
export function writeBlindWhenPossible(): void {
  const loadedModules = createRequire(import.meta.url).cache;
  for (const [name, kind] of [
    ['./actions/putItem', 'put'],
    ['./actions/deleteItem', 'delete'],
  ] as const) {
    const action = requireFromDynalite(name) as Action & { [patched]?: true };
    const loaded = loadedModules[resolveFromDynalite(name)];
    if (action[patched] || loaded === undefined) continue;
    loaded.exports = Object.assign(withBlindWrites(action, kind), { [patched]: true as const });
  }
}
