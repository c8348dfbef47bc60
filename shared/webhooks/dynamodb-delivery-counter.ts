import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { type Clock, systemClock } from '../clock.ts';
import { mapWithConcurrency } from '../concurrency.ts';
import { parseOrThrow } from '../errors.ts';
import { withStoreErrors } from '../state/dynamodb-errors.ts';
import {
  addDeliveryCounts,
  type DeliveryCounter,
  type DeliveryCountRange,
  type DeliveryCounts,
  type DeliveryTallies,
  inCountRange,
  NO_DELIVERY_COUNTS,
} from './delivery-counter.ts';
import { WebhookTable } from './dynamodb-table-access.ts';
import { WEBHOOK_RETENTION_MS } from './dynamodb-webhook-keys.ts';

/** Partition key prefix of counter items: `DELIVERED#<streamId>` (beside the store's `DELIVERY#`…). */
export const DELIVERED_PK_PREFIX = 'DELIVERED#';
/** Sort key prefix of a counter item: `AT#` and the detection instant, 15 digits of epoch ms. */
export const DELIVERED_SK_PREFIX = 'AT#';

/** Streams whose counters one reading queries at once. */
const QUERIES_IN_FLIGHT = 16;

const CounterItemSchema = z.object({
  sk: z.string(),
  events: z.number().int().nonnegative().optional(),
  created: z.number().int().nonnegative().optional(),
  delivered: z.number().int().nonnegative().optional(),
  dead: z.number().int().nonnegative().optional(),
});

/** The sort key of the counters of events detected at `at` (epoch ms): sorts in time order. */
function instantKey(at: number): string {
  return `${DELIVERED_SK_PREFIX}${String(Math.max(0, Math.trunc(at))).padStart(15, '0')}`;
}

/** Options of {@link DynamoDbDeliveryCounter}. */
export interface DynamoDbDeliveryCounterOptions {
  client: DynamoDBClient;
  tableName: string;
  /** Dates each counter's `ttl` (default: the wall clock). */
  clock?: Clock;
  /** How long a counter item stays after its last increment (default: the webhook retention). */
  retentionMs?: number;
}

/**
 * The {@link DeliveryCounter} in the shared table: one small item per stream and detection
 * instant (pk `DELIVERED#<streamId>`, sk `AT#<epoch ms>`, numbers `events`, `created`,
 * `delivered`, `dead`, and a `ttl` of the webhook retention), grown with `ADD`, which is atomic,
 * so dispatchers running at once never lose an increment. A page's events share their detection
 * instant, so a batch writes about one item per stream it handled, and each write stays under the
 * 1 KB write unit. A reading is one Query per stream over the instants of its range (one item per
 * page or live poll that published), eventually consistent (progress may lag by a second).
 */
export class DynamoDbDeliveryCounter implements DeliveryCounter {
  private readonly table: WebhookTable;

  constructor(private readonly options: DynamoDbDeliveryCounterOptions) {
    this.table = WebhookTable.on(options.client, options.tableName);
  }

  async add(tallies: DeliveryTallies): Promise<void> {
    const { tableName } = this.options;
    const now = (this.options.clock ?? systemClock).now();
    const ttl = Math.floor((now + (this.options.retentionMs ?? WEBHOOK_RETENTION_MS)) / 1000);
    const writes: Promise<unknown>[] = [];
    for (const [streamId, byInstant] of tallies) {
      for (const [at, counts] of byInstant) {
        const positive = Object.entries(counts).filter(([, count]) => (count ?? 0) > 0);
        if (positive.length === 0) continue;
        const names = Object.fromEntries(positive.map(([kind], i) => [`#c${i}`, kind]));
        const values = Object.fromEntries(positive.map(([, count], i) => [`:c${i}`, count]));
        writes.push(
          withStoreErrors(tableName, 'UpdateItem', () =>
            this.table.client.send(
              new UpdateCommand({
                TableName: tableName,
                Key: { pk: `${DELIVERED_PK_PREFIX}${streamId}`, sk: instantKey(at) },
                UpdateExpression: `SET #ttl = :ttl ADD ${positive.map((_, i) => `#c${i} :c${i}`).join(', ')}`,
                ExpressionAttributeNames: { ...names, '#ttl': 'ttl' },
                ExpressionAttributeValues: { ...values, ':ttl': ttl },
              }),
            ),
          ),
        );
      }
    }
    await Promise.all(writes);
  }

  async read(ranges: readonly DeliveryCountRange[]): Promise<Map<string, DeliveryCounts>> {
    const { tableName } = this.options;
    const sums = await mapWithConcurrency(ranges, QUERIES_IN_FLIGHT, async (range) => {
      const items = await withStoreErrors(tableName, 'Query', () =>
        this.table.query(`${DELIVERED_PK_PREFIX}${range.streamId}`, {
          from: instantKey(range.fromMs),
        }),
      );
      let sum = NO_DELIVERY_COUNTS;
      for (const item of items) {
        const counter = parseOrThrow(CounterItemSchema, item, 'stored delivery counter');
        // Items of another layout (the stream-wide `COUNT` of earlier versions) are left out.
        if (!counter.sk.startsWith(DELIVERED_SK_PREFIX)) continue;
        const at = Number(counter.sk.slice(DELIVERED_SK_PREFIX.length));
        if (inCountRange(range, at)) sum = addDeliveryCounts(sum, counter);
      }
      return [range.streamId, sum] as const;
    });
    return new Map(sums);
  }
}
