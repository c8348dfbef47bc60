import { requireFromDynalite } from './dynalite-require.ts';

type Callback = (error: Error | null, value?: unknown) => void;

/** The part of a dynalite store the cache wraps (dynalite ships no types). */
interface DynaliteStore {
  getTable(name: string, checkStatus: boolean | Callback, cb?: Callback): void;
  tableDb: { put: (...args: unknown[]) => unknown; del: (...args: unknown[]) => unknown };
}

interface DynaliteDb {
  create(options: unknown): DynaliteStore;
  [cached]?: true;
}

const cached = Symbol.for('change-bridge.dynaliteTableCache');

/** A table description as far as the cache reads it. */
function isActive(table: unknown): boolean {
  return typeof table === 'object' && table !== null && 'TableStatus' in table
    ? table.TableStatus === 'ACTIVE'
    : false;
}

/**
 * Makes dynalite keep the descriptions of its ACTIVE tables in memory. dynalite (4.0) reads the
 * table's description from LevelDB and decodes it for every item of every request (a
 * BatchWriteItem of 25 items reads it 26 times), about a third of the reads of a local run. The
 * cache of a store empties on every write of its table descriptions (CreateTable, UpdateTable,
 * DeleteTable and their status changes), so a table is never seen older than it is stored.
 * Idempotent.
 */
export function cacheDynaliteTables(): void {
  const db = requireFromDynalite('./db') as DynaliteDb;
  if (db[cached]) return;
  const create = db.create;
  db.create = function createWithTableCache(options: unknown) {
    const store = create.call(this, options);
    const tables = new Map<string, unknown>();
    const { getTable } = store;
    store.getTable = (name, checkStatus, cb) => {
      const callback = typeof checkStatus === 'function' ? checkStatus : cb!;
      const check = typeof checkStatus === 'function' ? false : checkStatus;
      const table = tables.get(name);
      // Answered asynchronously, as the read it replaces.
      if (table !== undefined) return void queueMicrotask(() => callback(null, table));
      getTable.call(store, name, check, (error, found) => {
        if (!error && isActive(found)) tables.set(name, found);
        callback(error, found);
      });
    };
    for (const method of ['put', 'del'] as const) {
      const write = store.tableDb[method];
      store.tableDb[method] = (...args: unknown[]) => {
        tables.clear();
        return write.apply(store.tableDb, args);
      };
    }
    return store;
  };
  db[cached] = true;
}
