import { join } from 'node:path';
import { SQSClient } from '@aws-sdk/client-sqs';
import { z } from 'zod';
import { type Clock, systemClock } from '../../clock.ts';
import { BridgeError } from '../../errors.ts';
import { EMULATOR_REGION } from '../emulator-ids.ts';
import { LOCAL_CREDENTIALS, UNSERVED_QUEUE_ENDPOINT } from '../local-credentials.ts';
import type { SqsEmulator } from '../sqs-emulator.ts';
import { importLevelQueue } from './level-queue-import.ts';
import { type GroupKeyCounts, LogQueueStore } from './log-queue-store.ts';
import {
  MOVE_MESSAGE_GROUP,
  type SqsJsonHandler,
  serveSqsJson,
  sqsJsonHandlers,
} from './sqs-json-server.ts';

/** The dispatch queue on disk (see {@link startDiskQueue}). */
export interface DiskQueue extends SqsEmulator {
  /**
   * Calls `visit` with the body of every message queue `name` (once created) holds now
   * (visible, in flight or delayed), in no particular order, changing nothing; with `marker`,
   * only bodies holding it.
   * What no SQS operation offers: a look at delayed messages (retries waiting for their time).
   */
  forEachBody(name: string, visit: (body: string) => void, marker?: string): void;
  /**
   * Moves every message of `group` (sent with that `MessageGroupId`) from the queue at
   * `sourceUrl` to the back of the queue at `targetUrl`, oldest first, unless one of them is in
   * flight or delayed: then none, and `held` says how many are.
   * What no SQS operation offers: a subject's waiting events taken ahead of a backlog.
   */
  moveMessageGroup(
    sourceUrl: string,
    targetUrl: string,
    group: string,
  ): Promise<{ moved: number; held: number }>;
  /**
   * The messages queue `name` (once created) holds, counted by their group's key, and those
   * without a group (see LogQueueStore.groupKeys).
   */
  groupKeys(name: string): GroupKeyCounts;
}

/**
 * The local dispatch queue on disk: a small SQS endpoint (the operations the adapters use, over
 * the SDK's JSON protocol) whose messages live in a log of files a queue under `path` (see
 * LogQueueStore). Unlike the in-memory emulator, a backlog costs disk rather than memory, and
 * messages published but not yet fanned out survive a SIGKILL and a restart (design.md,
 * Backpressure: the rest waits on disk). A backlog an earlier version left in LevelDB at `path`
 * moves into the logs at start.
 * @example const queue = await startDiskQueue({ path: join(dataDir, 'queue') });
 */
export async function startDiskQueue(options: {
  path: string;
  clock?: Clock;
  /**
   * Whether the client calls the queue in process (default) rather than over HTTP: the SDK
   * builds each command and reads each answer as usual, but no request is serialised, sent or
   * parsed, which was most of the cost of a message passing through.
   */
  inProcess?: boolean;
  /**
   * Whether the queue serves its SQS endpoint on a port of 127.0.0.1 as well (default true:
   * tests, tools). `start` passes false: its client calls it in process, and a port would offer
   * every pending delivery to whatever else runs on the machine. Requires `inProcess`.
   */
  listen?: boolean;
}): Promise<DiskQueue> {
  const clock = options.clock ?? systemClock;
  const stores = new Map<string, LogQueueStore>();
  const storeOf = (queue: string) => {
    let store = stores.get(queue);
    if (store === undefined) {
      store = new LogQueueStore(join(options.path, queue), queue, clock);
      store.open();
      stores.set(queue, store);
    }
    return store;
  };
  const closeStores = () => {
    for (const store of stores.values()) store.close();
  };
  const inProcess = options.inProcess ?? true;
  const listen = options.listen ?? true;
  if (!listen && !inProcess)
    throw new BridgeError('the disk queue cannot be called over HTTP without listening');
  const closing = new AbortController();
  let endpoint = UNSERVED_QUEUE_ENDPOINT;
  const handlers = sqsJsonHandlers(storeOf, clock, () => endpoint, closing.signal);
  const served = await importLevelQueue(options.path, storeOf, clock.now())
    .then(() => (listen ? serveSqsJson(handlers) : undefined))
    .catch((error: unknown) => {
      closeStores();
      throw error;
    });
  if (served) endpoint = served.endpoint;
  const client = new SQSClient({
    region: EMULATOR_REGION,
    endpoint,
    credentials: LOCAL_CREDENTIALS,
    // No MD5 of every body sent and received: the queue is in this process, over loopback.
    md5: false,
  });
  if (inProcess) callInProcess(client, handlers);
  return {
    endpoint,
    client,
    async createQueue(name, attributes = {}) {
      const { QueueUrl } = await handlers.CreateQueue!({ QueueName: name, Attributes: attributes });
      if (typeof QueueUrl !== 'string') throw new BridgeError(`no URL for queue ${name}`);
      return QueueUrl;
    },
    forEachBody(name, visit, marker) {
      stores.get(name)?.forEachBody(visit, marker);
    },
    groupKeys(name) {
      return stores.get(name)?.groupKeys() ?? { keys: new Map(), ungrouped: 0 };
    },
    async moveMessageGroup(sourceUrl, targetUrl, group) {
      const answer = await handlers[MOVE_MESSAGE_GROUP]!({
        SourceQueueUrl: sourceUrl,
        QueueUrl: targetUrl,
        MessageGroupId: group,
      });
      return MoveAnswerSchema.parse(answer);
    },
    async close() {
      closing.abort();
      client.destroy();
      if (served) {
        served.server.closeAllConnections();
        await new Promise<void>((resolve) => served.server.close(() => resolve()));
      }
      closeStores();
    },
  };
}

/** What `SQSClient.send` is handed: a command (its input) and, optionally, its options. */
interface SentCommand {
  input: unknown;
  constructor: { name: string };
}

/**
 * Answers `client`'s commands with `handlers` directly, instead of the SDK's middleware stack:
 * the command's input is the operation's JSON input (the SDK's JSON protocol uses the same
 * member names), and the handler's answer is the command's output. Resolving the stack for each
 * command (a receive, a delete of ten, a send of ten) was about 5 % of the bridge's main thread
 * in a webhook burst, for work that never leaves the process. A fault surfaces as the handler's
 * error, named for its code as the SDK's exceptions are; an aborted request (a stopped long
 * poll) rejects with an `AbortError`. Commands without a handler, and calls with a callback, go
 * through the SDK (and over HTTP) as before.
 */
function callInProcess(client: SQSClient, handlers: Record<string, SqsJsonHandler>): void {
  const viaSdk = client.send.bind(client) as (...args: unknown[]) => Promise<unknown>;
  const send = (command: SentCommand, ...rest: unknown[]): Promise<unknown> => {
    const handler = handlers[command.constructor.name.replace(/Command$/, '')];
    const [options] = rest;
    if (!handler || rest.length > 1 || typeof options === 'function')
      return viaSdk(command, ...rest);
    const signal = AbortOptionsSchema.safeParse(options).data?.abortSignal;
    // Assigned, not spread: a spread would read the answer's MD5 members (see withLazyMd5).
    return handler(command.input as Record<string, unknown>, signal).then((output) =>
      Object.assign(output, { $metadata: {} }),
    );
  };
  client.send = send as SQSClient['send'];
}

/** What {@link MOVE_MESSAGE_GROUP} answers. */
const MoveAnswerSchema = z
  .object({ Moved: z.number(), Held: z.number() })
  .transform(({ Moved, Held }) => ({ moved: Moved, held: Held }));

/** The options of a send that matter here: its abort signal. */
const AbortOptionsSchema = z
  .looseObject({ abortSignal: z.instanceof(AbortSignal).optional() })
  .optional();
