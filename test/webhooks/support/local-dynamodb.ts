import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createStateTable } from '../../../shared/state/dynamodb-table.ts';

interface DynaliteServer {
  listen(port: number, host: string, callback: (error?: Error) => void): void;
  address(): AddressInfo | string | null;
  close(callback: () => void): void;
}

type DynaliteFactory = (options: { createTableMs: number }) => DynaliteServer;

function isFactory(value: unknown): value is DynaliteFactory {
  return typeof value === 'function';
}

/** A dynalite server on 127.0.0.1 with the state table created. */
export interface LocalTable {
  client: DynamoDBClient;
  tableName: string;
  stop(): Promise<void>;
}

/** Starts dynalite in-process on port 0 and creates a pk/sk table. */
export async function startLocalTable(tableName = 'webhooks-test'): Promise<LocalTable> {
  // dynalite ships no types; load it through require and check its shape.
  const loaded: unknown = createRequire(import.meta.url)('dynalite');
  if (!isFactory(loaded)) throw new Error('dynalite did not export a factory');
  const server = loaded({ createTableMs: 0 });
  await new Promise<void>((resolve, reject) =>
    server.listen(0, '127.0.0.1', (error) => (error ? reject(error) : resolve())),
  );
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const client = new DynamoDBClient({
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${port}`,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await createStateTable(client, tableName);
  return {
    client,
    tableName,
    stop: async () => {
      client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
