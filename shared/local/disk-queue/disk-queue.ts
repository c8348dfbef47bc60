import { SQSClient } from '@aws-sdk/client-sqs';
import { ClassicLevel } from 'classic-level';
import { z } from 'zod';
import { type Clock, systemClock } from '../../clock.ts';
import { BridgeError } from '../../errors.ts';
import { readLevelSynchronously } from '../dynalite-leveldb.ts';
import { EMULATOR_REGION } from '../emulator-ids.ts';
import type { SqsEmulator } from '../sqs-emulator.ts';
import { type SqsJsonHandler, serveSqsJson, sqsJsonHandlers } from './sqs-json-server.ts';

/** LevelDB block cache of the queue's database. */
const QUEUE_CACHE_BYTES = 1024 * 1024;

/**
 * The local dispatch queue on disk: a small SQS endpoint (the operations the adapters use, over
 * the SDK's JSON protocol) whose messages live in LevelDB under `path`. Unlike the in-memory
 * emulator, a backlog costs disk rather than memory, and messages published but not yet fanned
 * out survive a SIGKILL and a restart (design.md, Backpressure: the rest waits on disk).
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
}): Promise<SqsEmulator> {
  const clock = options.clock ?? systemClock;
  readLevelSynchronously();
  const db = new ClassicLevel<string, string>(options.path, {
    valueEncoding: 'utf8',
    // Messages are read soon after they are written (mostly from the memtable) and only once,
    // so a small block cache serves them; LevelDB's default is 8 MB.
    cacheSize: QUEUE_CACHE_BYTES,
  });
  await db.open();
  const closing = new AbortController();
  let endpoint = '';
  const handlers = sqsJsonHandlers(db, clock, () => endpoint, closing.signal);
  const served = await serveSqsJson(handlers).catch(async (error: unknown) => {
    await db.close();
    throw error;
  });
  endpoint = served.endpoint;
  const client = new SQSClient({
    region: EMULATOR_REGION,
    endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    // No MD5 of every body sent and received: the queue is in this process, over loopback.
    md5: false,
  });
  if (options.inProcess ?? true) callInProcess(client, handlers);
  return {
    endpoint,
    client,
    async createQueue(name, attributes = {}) {
      const { QueueUrl } = await handlers.CreateQueue!({ QueueName: name, Attributes: attributes });
      if (typeof QueueUrl !== 'string') throw new BridgeError(`no URL for queue ${name}`);
      return QueueUrl;
    },
    async close() {
      closing.abort();
      client.destroy();
      served.server.closeAllConnections();
      await new Promise<void>((resolve) => served.server.close(() => resolve()));
      await db.close();
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
    return handler(command.input as Record<string, unknown>, signal).then((output) => ({
      ...output,
      $metadata: {},
    }));
  };
  client.send = send as SQSClient['send'];
}

/** The options of a send that matter here: its abort signal. */
const AbortOptionsSchema = z
  .looseObject({ abortSignal: z.instanceof(AbortSignal).optional() })
  .optional();
