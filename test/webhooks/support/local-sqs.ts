import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { type FauxqsServer, startFauxqs } from 'fauxqs';

/** An SQS emulator (fauxqs) on 127.0.0.1 and a plain SDK client of it. */
export interface LocalSqs {
  server: FauxqsServer;
  client: SQSClient;
  /** Receives every message visible on a queue now (shaped as Lambda's records), leaving them in flight. */
  receiveAll(queueUrl: string): Promise<ReceivedMessage[]>;
  stop(): Promise<void>;
}

/** A received message as far as the dispatcher reads it, with its message group (FIFO). */
export interface ReceivedMessage {
  messageId: string;
  body: string;
  attributes: { MessageGroupId?: string };
}

/** Starts fauxqs on a free port, reached over HTTP by an SDK client with local credentials. */
export async function startLocalSqs(): Promise<LocalSqs> {
  const server = await startFauxqs({ port: 0, host: '127.0.0.1', logger: false });
  const client = new SQSClient({
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${server.port}`,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const receiveAll = async (queueUrl: string) => {
    const messages: ReceivedMessage[] = [];
    for (;;) {
      const result = await client.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 0,
          MessageSystemAttributeNames: ['MessageGroupId'],
        }),
      );
      const got = result.Messages ?? [];
      if (got.length === 0) return messages;
      for (const message of got)
        messages.push({
          messageId: message.MessageId ?? '',
          body: message.Body ?? '',
          attributes: { MessageGroupId: message.Attributes?.MessageGroupId },
        });
    }
  };
  return {
    server,
    client,
    receiveAll,
    stop: async () => {
      client.destroy();
      await server.stop();
    },
  };
}
