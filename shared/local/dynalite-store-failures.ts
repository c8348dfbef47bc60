import { createRequire } from 'node:module';
import { requireFromDynalite, resolveFromDynalite } from './dynalite-require.ts';

type Callback = (
  error: (Error & { statusCode?: number; body?: object }) | null,
  data?: object,
) => void;
type Action = (store: DynaliteStore, data: object, cb: Callback) => void;

/** The part of dynalite's store (its `db/index.js` create) that a reopen uses. */
interface DynaliteStore {
  /** Its LevelDB (classic-level), its `close` replaced by dynalite's graceful one. */
  db?: ReopenableLevel;
  lifecycleManager?: { getState(): string };
}

interface ReopenableLevel {
  status: string;
  open(): Promise<void>;
}

/** dynalite's actions (its `actions/` folder), each a module exporting one function. */
const ACTIONS = [
  'batchGetItem',
  'batchWriteItem',
  'createTable',
  'deleteItem',
  'deleteTable',
  'describeTable',
  'describeTimeToLive',
  'getItem',
  'listTables',
  'listTagsOfResource',
  'putItem',
  'query',
  'scan',
  'tagResource',
  'untagResource',
  'updateItem',
  'updateTable',
];

const answering = Symbol.for('change-bridge.storeFailuresAnswered');

/**
 * The error DynamoDB answers a failure of its own with (HTTP 500), carrying the store's
 * message (LevelDB's `IO error: …: No space left on device`, say).
 */
function internalServerError(error: Error): Error & { statusCode: number; body: object } {
  return Object.assign(new Error(error.message, { cause: error }), {
    statusCode: 500,
    body: {
      __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError',
      message: error.message,
    },
  });
}

/**
 * LevelDB's failure to write a table file or its manifest (a memtable flushed, a compaction:
 * `IO error: …/000005.ldb: No space left on device`). Unlike a failed append to its log, LevelDB
 * keeps it: every write fails with it from then on, however much room the disk has since, until
 * the database is opened again.
 */
export const STUCK_LEVEL_ERROR = /IO error: \S*?(\d+\.(ldb|sst)|MANIFEST-\d+)\b/;

/** The least time between two reopens of a stuck store (see {@link reopenStuckStore}). */
export const STORE_REOPEN_EVERY_MS = 5_000;

const reopenState = new WeakMap<object, { at: number; running: boolean; error: string }>();

/**
 * Opens a store's LevelDB again after an error it keeps until reopened ({@link STUCK_LEVEL_ERROR}),
 * or after such a reopen failed (the disk still full: LevelDB writes a table file as it opens),
 * at most once per {@link STORE_REOPEN_EVERY_MS}: the writes that follow go through once the disk
 * has room, where before the bridge needed a restart. Requests meanwhile fail (as they did); a
 * store closing for good (dynalite's own close) is left closed. Returns the error to answer: while
 * the store is closed for its reopen, the kept error, not dynalite's bare "Database is closed".
 */
function reopenStuckStore(store: DynaliteStore, error: Error): Error {
  const db = store.db;
  if (db === undefined || store.lifecycleManager?.getState() !== 'open') return error;
  const state = reopenState.get(db);
  const closedByReopen = state !== undefined && db.status !== 'open';
  const stuck = STUCK_LEVEL_ERROR.test(error.message);
  if (!stuck && !closedByReopen) return error;
  const answer = stuck
    ? error
    : new Error(
        `${state!.error} (LevelDB refuses writes after it until the store is opened again: it is, once there is room)`,
        { cause: error },
      );
  const now = Date.now();
  if (state?.running || (state && now - state.at < STORE_REOPEN_EVERY_MS)) {
    if (stuck && state) state.error = error.message;
    return answer;
  }
  const running = { at: now, running: true, error: stuck ? error.message : state!.error };
  reopenState.set(db, running);
  // The level's own close: dynalite's replaces `db.close` with one that ends the store for good.
  const close = (Object.getPrototypeOf(db) as { close(this: ReopenableLevel): Promise<void> })
    .close;
  void (async () => {
    try {
      if (db.status === 'open') await close.call(db);
      if (store.lifecycleManager?.getState() !== 'open') return;
      await db.open();
      // dynalite's own close came meanwhile (the bridge stopping): the store stays closed.
      if (store.lifecycleManager?.getState() !== 'open') await close.call(db);
    } catch {
      // Still refused (no room yet): the next failed request tries again after the wait.
    } finally {
      running.running = false;
    }
  })();
  return answer;
}

/**
 * What a failure of `store`'s own (LevelDB's `IO error`, say) is answered with: an
 * InternalServerError carrying its message, as {@link answerStoreFailures} makes dynalite's
 * actions answer it; a store that LevelDB refuses writes to until reopened is opened again.
 */
export function storeFailureAnswer(
  store: object,
  error: Error,
): Error & { statusCode: number; body: object } {
  return internalServerError(reopenStuckStore(store as DynaliteStore, error));
}

/**
 * Makes dynalite (4.0) answer a failure of its store (a full or read-only disk: LevelDB's
 * `IO error`) as DynamoDB answers its own failures, an InternalServerError (HTTP 500), instead
 * of throwing it out of its request listener's callback: an uncaught exception that ended the
 * process (on the main thread, or the store's thread with `BRIDGE_STORE_THREAD=true`) at the
 * first write once the disk filled, where the request alone should fail and the bridge go on
 * (its polls and deliveries retry) until there is room again; a store that LevelDB refuses writes
 * to until reopened is opened again ({@link reopenStuckStore}). Must run after the other fixes
 * that replace actions (it wraps what they made) and before dynalite's request handler loads
 * its actions (it keeps the functions it required). Idempotent.
 */
export function answerStoreFailures(): void {
  const loadedModules = createRequire(import.meta.url).cache;
  for (const name of ACTIONS) {
    const path = `./actions/${name}`;
    const action = requireFromDynalite(path) as Action & { [answering]?: true };
    const loaded = loadedModules[resolveFromDynalite(path)];
    if (action[answering] || loaded === undefined) continue;
    const wrapped: Action = (store, data, cb) =>
      action(store, data, (error, answer) =>
        cb(error && !error.statusCode ? storeFailureAnswer(store, error) : error, answer),
      );
    loaded.exports = Object.assign(wrapped, { [answering]: true as const });
  }
}
