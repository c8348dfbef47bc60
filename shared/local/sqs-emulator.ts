import type { AddressInfo } from 'node:net';
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { buildApp } from 'fauxqs';
import { BridgeError } from '../errors.ts';
import { EMULATOR_REGION } from './emulator-ids.ts';
import { LOCAL_CREDENTIALS } from './local-credentials.ts';

/** A running in-process SQS emulator and a real SDK client pointed at it. */
export interface SqsEmulator {
  /** Base URL of the emulator, `http://127.0.0.1:<port>`. */
  endpoint: string;
  /** A real `@aws-sdk/client-sqs` client for the emulator (region us-east-1, dummy keys). */
  client: SQSClient;
  /**
   * Creates a queue (FIFO when the name ends in `.fifo`) and returns its URL. Idempotent
   * for the same attributes, as CreateQueue is.
   */
  createQueue(name: string, attributes?: Record<string, string>): Promise<string>;
  /** Stops the emulator and the client; queues and messages are gone. */
  close(): Promise<void>;
}

// Kept in a module of their own, so that code using them does not load fauxqs (and fastify).
export { EMULATOR_ACCOUNT_ID, EMULATOR_REGION } from './emulator-ids.ts';

/**
 * Starts fauxqs in this process on 127.0.0.1 and a free port: the same SQS protocol, SDK
 * and adapters as in AWS, for `npm start` and tests. Call `close()` when done.
 * @example const sqs = await startSqsEmulator(); const url = await sqs.createQueue('dispatch');
 */
export async function startSqsEmulator(): Promise<SqsEmulator> {
  const app = buildApp({ logger: false, defaultRegion: EMULATOR_REGION });
  // Bound to loopback only, unlike startFauxqs (0.0.0.0): a local run exposes nothing.
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') {
    await app.close();
    throw new BridgeError('SQS emulator did not report a TCP address');
  }
  const endpoint = `http://127.0.0.1:${(address satisfies AddressInfo).port}`;
  const client = new SQSClient({
    region: EMULATOR_REGION,
    endpoint,
    credentials: LOCAL_CREDENTIALS,
  });
  return {
    endpoint,
    client,
    async createQueue(name, attributes = {}) {
      const fifo = name.endsWith('.fifo') ? { FifoQueue: 'true' } : {};
      const response = await client.send(
        new CreateQueueCommand({ QueueName: name, Attributes: { ...fifo, ...attributes } }),
      );
      if (!response.QueueUrl) throw new BridgeError(`CreateQueue returned no URL for ${name}`);
      return response.QueueUrl;
    },
    async close() {
      client.destroy();
      await app.close();
    },
  };
}
