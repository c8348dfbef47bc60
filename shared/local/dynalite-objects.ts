import type { Server } from 'node:http';
import { closedStoreError, dynaliteOpen } from './dynalite-in-process.ts';
import { requireFromDynalite } from './dynalite-require.ts';

/** A request's fields as DynamoDB's JSON would parse to (attribute values as `{ S: … }`). */
type Fields = Record<string, unknown>;
type Callback = (
  error: (Error & { statusCode?: number; body?: Fields }) | null,
  data?: Fields,
) => void;

/** dynalite's store of one server (created by its `db.create`), as its actions take it. */
type DynaliteStore = object;

interface DynaliteDbModule {
  create(options: object): DynaliteStore;
}

interface DynaliteValidationsModule {
  checkTypes(data: Fields, types: object): Fields;
  checkValidations(data: Fields, types: object, custom: unknown, store: DynaliteStore): void;
  toLowerFirst(name: string): string;
}

interface ActionValidation {
  types: object;
  custom?: unknown;
}

type Action = (store: DynaliteStore, data: Fields, cb: Callback) => void;

/** What dynalite answers a request with, as its listener would before writing it as JSON. */
export type DynaliteObjectAnswer =
  | { statusCode: 200; body: Fields }
  | { statusCode: number; body: { __type?: string; message?: string; Message?: string } };

/** Answers one operation (`'BatchWriteItem'`, …) on its request fields, without JSON. */
export type AnswerDynaliteObject = (target: string, data: Fields) => Promise<DynaliteObjectAnswer>;

const storeOfServer = new WeakMap<Server, DynaliteStore>();
/** The store dynalite's `db.create` made last, while {@link startNotingStore} waits for it. */
let created: DynaliteStore | undefined;
const captured = Symbol('change-bridge.storeCaptured');

/** Makes dynalite's `db.create` note the store it makes in {@link created}. Idempotent. */
function captureDynaliteStores(): void {
  const db = requireFromDynalite('./db') as DynaliteDbModule & { [captured]?: true };
  if (db[captured]) return;
  const create = db.create;
  db.create = (options) => {
    created = create(options);
    return created;
  };
  db[captured] = true;
}

/**
 * Runs `start` (which makes one dynalite server) and ties the store dynalite made for it to the
 * server, for {@link dynaliteObjectAnswer}. Returns the server.
 */
export function startNotingStore(start: () => Server): Server {
  captureDynaliteStores();
  created = undefined;
  const server = start();
  if (created === undefined) throw new Error('dynalite made no store for this server');
  storeOfServer.set(server, created);
  created = undefined;
  return server;
}

/**
 * The store dynalite made for `server` (see {@link startNotingStore}), for code that works on it
 * as dynalite's actions do; undefined for a server made otherwise.
 */
export function dynaliteStoreOf(server: Server): object | undefined {
  return storeOfServer.get(server);
}

/** The part of dynalite's store that {@link dynaliteStoreOpen} uses: its LevelDB. */
interface StoreWithLevel {
  db?: { open?(): Promise<void> };
}

/**
 * Resolves once the LevelDB of the store dynalite made for `server` is open. dynalite opens it
 * in the background, and a store that cannot open (a folder this process may not write, a
 * LevelDB another process holds) failed its first request with an error dynalite throws out of
 * its callback: an uncaught exception that ended the process with dynalite's stack trace.
 * @throws the open's error, its `cause` saying why (as LevelDB words it)
 */
export async function dynaliteStoreOpen(server: Server): Promise<void> {
  const db = (storeOfServer.get(server) as StoreWithLevel | undefined)?.db;
  if (typeof db?.open === 'function') await db.open();
}

/** The part of dynalite's store that {@link closeDynaliteStore} uses: its LevelDB's close. */
interface StoreWithClose {
  db?: { close?(callback: (error?: Error | null) => void): void };
}

/**
 * Closes (and flushes) the LevelDB of the store dynalite made for `server`, once its pending
 * operations are done: what dynalite's `server.close` does after the server stops listening,
 * for a server that never listened (whose `close` stops at node:http's ERR_SERVER_NOT_RUNNING).
 */
export function closeDynaliteStore(server: Server): Promise<void> {
  const db = (storeOfServer.get(server) as StoreWithClose | undefined)?.db;
  return new Promise((resolve, reject) => {
    if (typeof db?.close !== 'function') return resolve();
    db.close((error) => (error ? reject(error) : resolve()));
  });
}

function loadAction(action: string): { run: Action; validation: ActionValidation } {
  return {
    run: requireFromDynalite(`./actions/${action}`) as Action,
    validation: requireFromDynalite(`./validations/${action}`) as ActionValidation,
  };
}

/**
 * Answers requests as dynalite's request listener on `server` does once it has parsed the JSON
 * body (its type checks, validations and action, then the answer it would write), handed the
 * request's fields as objects and returning the answer's: no JSON written and parsed on either
 * side. `data` must be the caller's own (dynalite drops unknown and null members in place).
 */
export function dynaliteObjectAnswer(server: Server): AnswerDynaliteObject {
  const store = storeOfServer.get(server);
  if (store === undefined) throw new Error('no dynalite store noted for this server');
  const validations = requireFromDynalite('./validations') as DynaliteValidationsModule;
  const actions = new Map<string, ReturnType<typeof loadAction>>();
  return (target, data) =>
    new Promise((resolve, reject) => {
      // As a socket would be refused: a closed store must fail the call, not the process.
      if (!dynaliteOpen(server)) return reject(closedStoreError());
      const name = validations.toLowerFirst(target);
      let action = actions.get(name);
      if (action === undefined) {
        action = loadAction(name);
        actions.set(name, action);
      }
      const { run, validation } = action;
      const failed = (error: Parameters<Callback>[0]): boolean => {
        if (!error) return false;
        if (error.statusCode && error.body)
          resolve({ statusCode: error.statusCode, body: error.body });
        else reject(error);
        return true;
      };
      let checked: Fields;
      try {
        checked = validations.checkTypes(data, validation.types);
        validations.checkValidations(checked, validation.types, validation.custom, store);
      } catch (error) {
        failed(error as Parameters<Callback>[0]);
        return;
      }
      run(store, checked, (error, answer) => {
        if (!failed(error)) resolve({ statusCode: 200, body: answer ?? {} });
      });
    });
}
