import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BridgeError } from '../errors.ts';
import { routeDocumentClients } from '../state/document-client.ts';
import { type ItemPuts, routeItemPuts } from '../state/item-puts.ts';
import { directDocumentClient } from './direct-document-client.ts';
import {
  type AnswerDynalite,
  dynaliteInProcessAnswer,
  dynaliteRequestHandler,
  unsignedLocalSigner,
} from './dynalite-in-process.ts';
import { dynaliteItemPuts } from './dynalite-item-puts.ts';
import { type AnswerDynaliteObject, dynaliteObjectAnswer } from './dynalite-objects.ts';
import { closeDynaliteServer, startDynaliteServer } from './dynalite-server.ts';
import { startDynaliteThread } from './dynalite-thread-client.ts';
import { LOCAL_CREDENTIALS, UNSERVED_DYNAMODB_ENDPOINT } from './local-credentials.ts';

/**
 * How the client of {@link startLocalDynamoDb} reaches dynalite:
 * - `thread`: dynalite runs in a worker thread of this process, reached by message (its work
 *   runs beside the caller's, on another core; `BRIDGE_STORE_THREAD=true`);
 * - `in-process`: dynalite runs on the calling thread (the local runtime's default); the SDK's
 *   requests reach its request listener directly, and the stores' document clients hand it
 *   their requests as objects, past the JSON (dynalite-objects.ts);
 * - `http`: dynalite runs on the calling thread, reached over its loopback port.
 */
export type LocalDynamoDbTransport = 'thread' | 'in-process' | 'http';

/** Options of {@link startLocalDynamoDb}. */
export interface LocalDynamoDbOptions {
  /** Directory of a LevelDB store that survives restarts; in memory when absent. */
  path?: string;
  /** Default `in-process`. `endpoint` serves HTTP whichever is chosen, unless `listen` is false. */
  transport?: LocalDynamoDbTransport;
  /**
   * Whether dynalite serves HTTP on a port of 127.0.0.1 as well (default true: tests, tools).
   * `start` passes false: its clients reach the store in process, and a port would offer every
   * subscription's secret to whatever else runs on the machine. Requires a transport other
   * than `http`.
   */
  listen?: boolean;
  /**
   * Runs LevelDB's compactions below the event loop's priority (store-thread-priority.ts): for
   * the store of the process's own run (`change-bridge start`), where the loop's work comes
   * first. Only with a `path` and a transport other than `thread` (a worker's threads start
   * beside LevelDB's, which could not be told apart). Default false.
   */
  lowerCompactionPriority?: boolean;
}

/** A running local DynamoDB and a client bound to it. */
export interface LocalDynamoDb {
  /** `http://127.0.0.1:<port>`; {@link UNSERVED_DYNAMODB_ENDPOINT} with `listen: false`. */
  endpoint: string;
  /** A real SDK client of this store (region us-east-1, dummy credentials). */
  client: DynamoDBClient;
  /** Destroys the client and stops the server (flushing the on-disk store). Idempotent. */
  close(): Promise<void>;
}

/**
 * Starts dynalite (DynamoDB in pure JavaScript) in this process, on 127.0.0.1 on a free port
 * (none with `listen: false`), and a client bound to it. Tables become ACTIVE at once. It lacks
 * transactions, TTL expiry and PartiQL.
 * @throws BridgeError when `listen` is false and `transport` is `http`
 * @example const db = await startLocalDynamoDb({ path: '.bridge/dynamodb', transport: 'thread' }); ...; await db.close();
 */
export async function startLocalDynamoDb(
  options: LocalDynamoDbOptions = {},
): Promise<LocalDynamoDb> {
  const transport = options.transport ?? 'in-process';
  const listen = options.listen ?? true;
  if (!listen && transport === 'http')
    throw new BridgeError('the local DynamoDB cannot be reached over HTTP without listening');
  if (transport === 'thread') {
    const thread = await startDynaliteThread({
      ...(options.path !== undefined && { path: options.path }),
      listen,
    });
    return boundTo(thread.endpoint, thread.answer, () => thread.close());
  }
  const server = await startDynaliteServer(options.path, undefined, {
    listen,
    lowerCompactionPriority: options.lowerCompactionPriority ?? false,
  });
  const endpoint = listen
    ? `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    : UNSERVED_DYNAMODB_ENDPOINT;
  const stop = () => closeDynaliteServer(server);
  if (transport === 'http') return boundTo(endpoint, undefined, stop);
  return boundTo(endpoint, dynaliteInProcessAnswer(server), stop, {
    answerObject: dynaliteObjectAnswer(server),
    itemPuts: dynaliteItemPuts(server),
  });
}

/**
 * A client of `endpoint`, through `answer` when given: the SDK's requests unsigned (dynalite
 * checks no signature), and the stores' document clients skip the SDK altogether
 * ({@link directDocumentClient}). With `inProcess` (dynalite on this thread) they hand it
 * objects (`answerObject`), and the stores' blind item batches go straight into its LevelDB
 * (`itemPuts`).
 */
function boundTo(
  endpoint: string,
  answer: AnswerDynalite | undefined,
  stop: () => Promise<void>,
  inProcess?: { answerObject: AnswerDynaliteObject; itemPuts: ItemPuts },
): LocalDynamoDb {
  const client = new DynamoDBClient({
    region: 'us-east-1',
    endpoint,
    credentials: LOCAL_CREDENTIALS,
    ...(answer && { requestHandler: dynaliteRequestHandler(answer), signer: unsignedLocalSigner }),
  });
  if (inProcess) routeItemPuts(client, inProcess.itemPuts);
  if (answer)
    routeDocumentClients(client, (translateConfig) =>
      directDocumentClient({
        answer,
        ...(inProcess && { answerObject: inProcess.answerObject }),
        fallback: client,
        ...(translateConfig && { translateConfig }),
      }),
    );
  let closed: Promise<void> | undefined;
  return {
    endpoint,
    client,
    close: () => {
      // Destroying the client first ends its keep-alive sockets, so the server closes at once.
      closed ??= (async () => {
        client.destroy();
        await stop();
      })();
      return closed;
    },
  };
}
