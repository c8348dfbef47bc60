import { createRequire } from 'node:module';
import { requireFromDynalite, resolveFromDynalite } from './dynalite-require.ts';

type Callback = (
  error: (Error & { statusCode?: number; body?: object }) | null,
  data?: object,
) => void;
type Action = (store: object, data: object, cb: Callback) => void;

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
 * Makes dynalite (4.0) answer a failure of its store (a full or read-only disk: LevelDB's
 * `IO error`) as DynamoDB answers its own failures, an InternalServerError (HTTP 500), instead
 * of throwing it out of its request listener's callback: an uncaught exception that ended the
 * process (on the main thread, or the store's thread with `BRIDGE_STORE_THREAD=true`) at the
 * first write once the disk filled, where the request alone should fail and the bridge go on
 * (its polls and deliveries retry) until there is room again. Must run after the other fixes
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
        cb(error && !error.statusCode ? internalServerError(error) : error, answer),
      );
    loaded.exports = Object.assign(wrapped, { [answering]: true as const });
  }
}
