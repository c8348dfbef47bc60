import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../clock.ts';
import { documentClientOf } from '../state/document-client.ts';

/** The one item the probe rewrites: a key of no store's (STREAMS, STREAM#…, SUB#…, BUDGET#…). */
export const WRITE_PROBE_KEY = { pk: 'PROBE', sk: 'WRITES' } as const;

/**
 * A write that tells whether the local store takes writes (a full disk refuses them): the poll
 * loop tries it while streams are held (PollLoopOptions.probeWrites). One small item, rewritten
 * with the time of the try: the store keeps nothing more for it.
 * @example startPollLoop({ ..., probeWrites: storeWriteProbe(dynamo.client, 'change-bridge', clock) })
 */
export function storeWriteProbe(
  client: DynamoDBClient,
  tableName: string,
  clock: Clock,
): () => Promise<void> {
  const documents = documentClientOf(client);
  return async () => {
    await documents.send(
      new PutCommand({ TableName: tableName, Item: { ...WRITE_PROBE_KEY, at: clock.now() } }),
    );
  };
}
