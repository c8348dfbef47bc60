import { mkdir } from 'node:fs/promises';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { dynaliteInProcessHandler, unsignedLocalSigner } from './dynalite-in-process.ts';
import { applyLocalLevelDefaults, closeDynaliteIterators } from './dynalite-leveldb.ts';
import { cacheDynaliteTables } from './dynalite-tables.ts';

/** The part of dynalite's options used here (the package ships no types). */
interface DynaliteOptions {
  path?: string;
  createTableMs?: number;
  deleteTableMs?: number;
  updateTableMs?: number;
}

// dynalite is CommonJS without declarations: load it through require, typed at this boundary.
const dynalite: (options: DynaliteOptions) => Server = createRequire(import.meta.url)('dynalite');

/** Options of {@link startLocalDynamoDb}. */
export interface LocalDynamoDbOptions {
  /** Directory of a LevelDB store that survives restarts; in memory when absent. */
  path?: string;
  /**
   * Whether `client` hands its requests to dynalite in this process instead of over a socket
   * (default true; see {@link dynaliteInProcessHandler}). `endpoint` serves HTTP either way.
   */
  inProcess?: boolean;
}

/** A running in-process DynamoDB and a client bound to it. */
export interface LocalDynamoDb {
  /** `http://127.0.0.1:<port>`. */
  endpoint: string;
  /**
   * A real SDK client of this store (region us-east-1, dummy credentials): its requests go to
   * dynalite's request listener in this process unless `inProcess: false`, then to `endpoint`.
   */
  client: DynamoDBClient;
  /** Destroys the client and stops the server (flushing the on-disk store). */
  close(): Promise<void>;
}

/**
 * Starts dynalite (DynamoDB in pure JavaScript) in this process on 127.0.0.1, on a free port.
 * Tables become ACTIVE at once. It lacks transactions, TTL expiry and PartiQL.
 * @example const db = await startLocalDynamoDb({ path: '.bridge/dynamodb' }); ...; await db.close();
 */
export async function startLocalDynamoDb(
  options: LocalDynamoDbOptions = {},
): Promise<LocalDynamoDb> {
  if (options.path !== undefined) await mkdir(dirname(options.path), { recursive: true });
  closeDynaliteIterators();
  applyLocalLevelDefaults();
  cacheDynaliteTables();
  const server: Server = dynalite({
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
    ...(options.path !== undefined && { path: options.path }),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({
    region: 'us-east-1',
    endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    ...((options.inProcess ?? true) && {
      requestHandler: dynaliteInProcessHandler(server),
      signer: unsignedLocalSigner,
    }),
  });
  let closed: Promise<void> | undefined;
  return {
    endpoint,
    client,
    close: () => {
      closed ??= (async () => {
        // Destroying the client first ends its keep-alive sockets, so the server closes at once.
        client.destroy();
        await new Promise<void>((resolve, reject) =>
          server.close((error) => (error ? reject(error) : resolve())),
        );
      })();
      return closed;
    },
  };
}
