import { SQSClient } from '@aws-sdk/client-sqs';
import { type FauxqsServer, startFauxqs } from 'fauxqs';

/** An SQS emulator (fauxqs) on 127.0.0.1 and a plain SDK client of it. */
export interface LocalSqs {
  server: FauxqsServer;
  client: SQSClient;
  stop(): Promise<void>;
}

/** Starts fauxqs on a free port, reached over HTTP by an SDK client with local credentials. */
export async function startLocalSqs(): Promise<LocalSqs> {
  const server = await startFauxqs({ port: 0, host: '127.0.0.1', logger: false });
  const client = new SQSClient({
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${server.port}`,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  return {
    server,
    client,
    stop: async () => {
      client.destroy();
      await server.stop();
    },
  };
}
