import { mkdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { BridgeError, describeThrown } from '../errors.ts';
import { writeBlindWhenPossible } from './dynalite-blind-writes.ts';
import { noteOpenWithoutPort } from './dynalite-in-process.ts';
import {
  applyLocalLevelDefaults,
  closeDynaliteIterators,
  readLevelSynchronously,
} from './dynalite-leveldb.ts';
import { closeDynaliteStore, dynaliteStoreOpen, startNotingStore } from './dynalite-objects.ts';
import { answerStoreFailures } from './dynalite-store-failures.ts';
import { cacheDynaliteTables } from './dynalite-tables.ts';
import { parseDynaliteTypesOnce } from './dynalite-type-check.ts';
import { LOCAL_CREDENTIALS } from './local-credentials.ts';
import { refuseForeignCallers } from './loopback-only.ts';
import { lowerStoreCompactionPriority } from './store-thread-priority.ts';

/** The part of dynalite's options used here (the package ships no types). */
interface DynaliteOptions {
  path?: string;
  createTableMs?: number;
  deleteTableMs?: number;
  updateTableMs?: number;
}

/**
 * dynalite, loaded on first use (a thread that only reaches it by message never loads it). It is
 * CommonJS without declarations: loaded through require, typed at this boundary.
 */
function loadDynalite(): (options: DynaliteOptions) => Server {
  return createRequire(import.meta.url)('dynalite');
}

/**
 * Starts dynalite (DynamoDB in pure JavaScript) in the calling thread, listening on 127.0.0.1
 * on a free port (unless `listen` is false: then it is reached in process only, through its
 * request listener), with the local fixes applied (iterators closed, LevelDB sized for one
 * machine and read synchronously, table descriptions cached, JSON types checked without
 * per-value parsing, writes that need nothing of the old item made without reading it, a
 * failure of the store answered as an InternalServerError instead of thrown).
 * Tables become ACTIVE at once. Only the bridge's own clients are answered over the network
 * (`refuseForeignCallers`: no web page, even through DNS rebinding). Persisted in a LevelDB
 * store at `path` when given (its folder is created), in memory otherwise; with
 * `lowerCompactionPriority` (a process's own store: `change-bridge start`), LevelDB's compactions
 * run below the event loop's priority (store-thread-priority.ts).
 * @throws BridgeError naming `path` when its store cannot be opened (a folder this process may
 * not write, a LevelDB another process holds)
 * @example const server = await startDynaliteServer('.bridge/dynamodb'); ...; await closeDynaliteServer(server);
 */
export async function startDynaliteServer(
  path?: string,
  accessKeyId: string = LOCAL_CREDENTIALS.accessKeyId,
  {
    listen = true,
    lowerCompactionPriority = false,
  }: { listen?: boolean; lowerCompactionPriority?: boolean } = {},
): Promise<Server> {
  if (path !== undefined) {
    await mkdir(dirname(path), { recursive: true });
    // Before LevelDB can start its compaction thread (the mkdir ran on libuv's pool: it runs).
    if (lowerCompactionPriority) lowerStoreCompactionPriority();
  }
  closeDynaliteIterators();
  applyLocalLevelDefaults();
  readLevelSynchronously();
  cacheDynaliteTables();
  parseDynaliteTypesOnce();
  writeBlindWhenPossible();
  answerStoreFailures();
  const server = startNotingStore(() =>
    refuseForeignCallers(
      loadDynalite()({
        createTableMs: 0,
        deleteTableMs: 0,
        updateTableMs: 0,
        ...(path !== undefined && { path }),
      }),
      accessKeyId,
    ),
  );
  if (path !== undefined) {
    try {
      await dynaliteStoreOpen(server);
    } catch (error) {
      const cause = (error as { cause?: unknown }).cause ?? error;
      throw new BridgeError(`the local store ${path} cannot be opened: ${describeThrown(cause)}`, {
        cause: error,
      });
    }
  }
  if (!listen) {
    withoutPort.add(server);
    noteOpenWithoutPort(server, true);
    return server;
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

/** Servers started with `listen: false`: they are closed without node:http's close. */
const withoutPort = new WeakSet<Server>();

/** Stops the server; dynalite closes (and flushes) its LevelDB store with it. */
export function closeDynaliteServer(server: Server): Promise<void> {
  if (withoutPort.has(server)) {
    noteOpenWithoutPort(server, false);
    return closeDynaliteStore(server);
  }
  return new Promise<void>((resolve, reject) =>
    server.close((error) => (error ? reject(error) : resolve())),
  );
}
