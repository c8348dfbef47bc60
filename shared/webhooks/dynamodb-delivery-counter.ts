import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { z } from 'zod';
import { parseOrThrow } from '../errors.ts';
import { addCounts } from '../state/dynamodb-counters.ts';
import { withStoreErrors } from '../state/dynamodb-errors.ts';
import type { DeliveryCounter } from './delivery-counter.ts';
import { WebhookTable } from './dynamodb-table-access.ts';

/** Partition key prefix of counter items: `DELIVERED#<streamId>` (beside the store's `DELIVERY#`…). */
export const DELIVERED_PK_PREFIX = 'DELIVERED#';
/** Sort key of a counter item. */
export const DELIVERED_SK = 'COUNT';

const CounterItemSchema = z.object({
  pk: z.string(),
  delivered: z.number().int().nonnegative(),
});

/** Options of {@link DynamoDbDeliveryCounter}. */
export interface DynamoDbDeliveryCounterOptions {
  client: DynamoDBClient;
  tableName: string;
}

/**
 * The {@link DeliveryCounter} in the shared table: one small item per stream (pk
 * `DELIVERED#<streamId>`, sk `COUNT`, number `delivered`, no TTL: a counter lives as long as
 * its stream), grown with `ADD`, which is atomic, so dispatchers running at once never lose
 * an increment. One item per stream rather than one for all: each write stays under the 1 KB
 * write unit however many connections there are, and busy streams do not share a partition
 * (one partition takes ~1,000 writes/s; a stream's counter gets one write per dispatch batch).
 * Reads are one BatchGetItem, eventually consistent (progress may lag by a second).
 */
export class DynamoDbDeliveryCounter implements DeliveryCounter {
  private readonly table: WebhookTable;

  constructor(private readonly options: DynamoDbDeliveryCounterOptions) {
    this.table = WebhookTable.on(options.client, options.tableName);
  }

  async add(counts: ReadonlyMap<string, number>): Promise<void> {
    await addCounts(this.table.client, this.options.tableName, counts, (streamId, count) => ({
      Key: { pk: `${DELIVERED_PK_PREFIX}${streamId}`, sk: DELIVERED_SK },
      UpdateExpression: 'ADD delivered :count',
      ExpressionAttributeValues: { ':count': count },
    }));
  }

  async read(streamIds: readonly string[]): Promise<Map<string, number>> {
    const unique = [...new Set(streamIds)];
    const items = await withStoreErrors(this.options.tableName, 'BatchGetItem', () =>
      this.table.batchGetItems(
        unique.map((id) => ({ pk: `${DELIVERED_PK_PREFIX}${id}`, sk: DELIVERED_SK })),
      ),
    );
    const counts = new Map(unique.map((id) => [id, 0]));
    for (const item of items) {
      const counter = parseOrThrow(CounterItemSchema, item, 'stored delivery counter');
      counts.set(counter.pk.slice(DELIVERED_PK_PREFIX.length), counter.delivered);
    }
    return counts;
  }
}
