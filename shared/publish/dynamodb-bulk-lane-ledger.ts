import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type Clock, systemRandom } from '../clock.ts';
import { parseOrThrow } from '../errors.ts';
import { type DocumentClient, documentClientOf } from '../state/document-client.ts';
import { batchGetItems } from '../state/dynamodb-batch.ts';
import { addCounts } from '../state/dynamodb-counters.ts';
import { withStoreErrors } from '../state/dynamodb-errors.ts';
import { BulkLaneCountSchema, type BulkLaneLedger, isBulkPending } from './bulk-lane.ts';

/** Partition key prefix of a stream's bulk-lane counts: `BULKLANE#<streamId>`, sort key `COUNT`. */
export const BULK_LANE_PK_PREFIX = 'BULKLANE#';
const BULK_LANE_SK = 'COUNT';

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
    const keys = [...new Set(streamIds)].map((id) => ({
      pk: `${BULK_LANE_PK_PREFIX}${id}`,
      sk: BULK_LANE_SK,
    }));
    const items = await withStoreErrors(tableName, 'BatchGetItem', () =>
      batchGetItems(
        {
          documentClient: this.client,
          tableName,
          clock,
          random: systemRandom,
          concurrency: 1,
          consistentRead: true,
        },
        keys,
      ),
    );
    const now = clock.now();
    const pending = new Set<string>();
    for (const item of items) {
      const count = parseOrThrow(BulkLaneCountSchema, item, 'stored bulk lane count');
      if (isBulkPending(count, now)) pending.add(String(item.pk).slice(BULK_LANE_PK_PREFIX.length));
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
