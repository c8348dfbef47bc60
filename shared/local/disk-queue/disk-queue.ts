import { SQSClient } from '@aws-sdk/client-sqs';
import { ClassicLevel } from 'classic-level';
import { type Clock, systemClock } from '../../clock.ts';
import { BridgeError } from '../../errors.ts';
import { EMULATOR_REGION } from '../emulator-ids.ts';
import type { SqsEmulator } from '../sqs-emulator.ts';
import { serveSqsJson, sqsJsonHandlers } from './sqs-json-server.ts';

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
}): Promise<SqsEmulator> {
  const clock = options.clock ?? systemClock;
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
