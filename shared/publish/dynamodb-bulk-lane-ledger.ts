import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, type BatchGetCommandOutput } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../clock.ts';
import { parseOrThrow } from '../errors.ts';
import { type DocumentClient, documentClientOf } from '../state/document-client.ts';
import { addCounts } from '../state/dynamodb-counters.ts';
import { withStoreErrors } from '../state/dynamodb-errors.ts';
import { BulkLaneCountSchema, type BulkLaneLedger, isBulkPending } from './bulk-lane.ts';

/** Partition key prefix of a stream's bulk-lane counts: `BULKLANE#<streamId>`, sort key `COUNT`. */
export const BULK_LANE_PK_PREFIX = 'BULKLANE#';
const BULK_LANE_SK = 'COUNT';

/** BatchGetItem takes at most 100 keys (DynamoDB limit). */
const BATCH_GET_MAX_KEYS = 100;

/** Options of {@link DynamoDbBulkLaneLedger}. */
export interface DynamoDbBulkLaneLedgerOptions {
  client: DynamoDBClient;
  tableName: string;
  clock: Clock;
}

/**
 * The {@link BulkLaneLedger} in the state table: one small item per stream (`queued`, `handled`,
 * `movedAt`), grown with `ADD` (atomic: pollers and dispatchers never lose an update), no TTL
 * (a stream keeps one item). Reads are strongly consistent: a stale `queued` could let a live
 * event overtake a bulk one.
 */
export class DynamoDbBulkLaneLedger implements BulkLaneLedger {
  private readonly client: DocumentClient;

  constructor(private readonly options: DynamoDbBulkLaneLedgerOptions) {
    // Same translate options as the other stores on this client (`from` keeps them on it).
    this.client = documentClientOf(options.client, {
      marshallOptions: { removeUndefinedValues: true },
    });
  }

  queued(counts: ReadonlyMap<string, number>): Promise<void> {
    return this.add(counts, 'queued');
  }

  handled(counts: ReadonlyMap<string, number>): Promise<void> {
    return this.add(counts, 'handled');
  }

  async pending(streamIds: readonly string[]): Promise<Set<string>> {
    const { tableName, clock } = this.options;
    const unique = [...new Set(streamIds)];
    const pending = new Set<string>();
    for (let index = 0; index < unique.length; index += BATCH_GET_MAX_KEYS) {
      let keys: Record<string, unknown>[] | undefined = unique
        .slice(index, index + BATCH_GET_MAX_KEYS)
        .map((id) => ({ pk: `${BULK_LANE_PK_PREFIX}${id}`, sk: BULK_LANE_SK }));
      while (keys && keys.length > 0) {
        const request: Record<string, unknown>[] = keys;
        const result: BatchGetCommandOutput = await withStoreErrors(tableName, 'BatchGetItem', () =>
          this.client.send(
            new BatchGetCommand({
              RequestItems: { [tableName]: { Keys: request, ConsistentRead: true } },
            }),
          ),
        );
        const now = clock.now();
        for (const item of result.Responses?.[tableName] ?? []) {
          const count = parseOrThrow(BulkLaneCountSchema, item, 'stored bulk lane count');
          if (isBulkPending(count, now))
            pending.add(String(item.pk).slice(BULK_LANE_PK_PREFIX.length));
        }
        keys = result.UnprocessedKeys?.[tableName]?.Keys;
      }
    }
    return pending;
  }

  private add(counts: ReadonlyMap<string, number>, field: 'queued' | 'handled'): Promise<void> {
    const now = this.options.clock.now();
    return addCounts(this.client, this.options.tableName, counts, (streamId, count) => ({
      Key: { pk: `${BULK_LANE_PK_PREFIX}${streamId}`, sk: BULK_LANE_SK },
      // Both counters exist from the first update, so a read always finds both.
      UpdateExpression: 'ADD #field :count, #other :zero SET movedAt = :now',
      ExpressionAttributeNames: {
        '#field': field,
        '#other': field === 'queued' ? 'handled' : 'queued',
      },
      ExpressionAttributeValues: { ':count': count, ':zero': 0, ':now': now },
    }));
  }
}
