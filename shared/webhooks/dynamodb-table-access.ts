import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { z } from 'zod';
import { type Clock, type RandomSource, systemClock, systemRandom } from '../clock.ts';
import { parseOrThrow } from '../errors.ts';
import { type DocumentClient, documentClientOf } from '../state/document-client.ts';
import {
  BATCH_CONCURRENCY_DEFAULT,
  type BatchContext,
  batchGetItems,
  batchWriteItems,
} from '../state/dynamodb-batch.ts';
import { type ItemPuts, itemPutsOf } from '../state/item-puts.ts';

/** Waits between retries of unprocessed batch work, and their jitter. */
export interface BatchTiming {
  clock: Clock;
  random: RandomSource;
}

/** An epoch-ms time as an ISO string, which sorts as text in time order (sort keys). */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** True for a failed `ConditionExpression` (a conditional put that lost). */
export function isConditionFailure(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

/**
 * The few table operations the webhook store needs, over items shaped `{ pk, sk, doc, … }`
 * whose `doc` is parsed with a zod schema on the way out.
 */
export class WebhookTable {
  constructor(
    /** The document client the table's operations use (commands of its own go through it too). */
    readonly client: DocumentClient,
    private readonly tableName: string,
    /** Backoff of batch retries (default: the wall clock, Math.random). */
    private readonly timing: BatchTiming = { clock: systemClock, random: systemRandom },
    /** The store's own route for unconditional puts, where it has one (item-puts.ts). */
    private readonly itemPuts?: ItemPuts,
  ) {}

  /**
   * The table `tableName` on the low-level `client`, through the document client every webhook
   * adapter shares: `from` keeps its translate options on the client's config, so every store
   * on one client must pass the same ones (undefined values removed).
   */
  static on(client: DynamoDBClient, tableName: string): WebhookTable {
    const documents = documentClientOf(client, {
      marshallOptions: { removeUndefinedValues: true },
    });
    const puts = itemPutsOf(client);
    return new WebhookTable(documents, tableName, undefined, puts);
  }

  /** PutItem, optionally conditional (throws ConditionalCheckFailedException when it loses). */
  async put(item: Record<string, unknown>, condition?: string, values?: Record<string, unknown>) {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: item,
        ConditionExpression: condition,
        ExpressionAttributeValues: values,
      }),
    );
  }

  /** PutItem on a condition: true when written, false when the condition did not hold. */
  async tryPut(
    item: Record<string, unknown>,
    condition: string,
    values?: Record<string, unknown>,
  ): Promise<boolean> {
    try {
      await this.put(item, condition, values);
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /**
   * UpdateItem of `key` with an update expression of the caller's own (REMOVE and ADD included)
   * on a condition: true when written, false when the condition did not hold.
   */
  async tryUpdate(
    key: { pk: string; sk: string },
    update: {
      expression: string;
      condition: string;
      names?: Record<string, string>;
      values?: Record<string, unknown>;
    },
  ): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression: update.expression,
          ConditionExpression: update.condition,
          ...(update.names ? { ExpressionAttributeNames: update.names } : {}),
          ...(update.values ? { ExpressionAttributeValues: update.values } : {}),
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /**
   * Unconditional puts, 25 per BatchWriteItem request, unprocessed items retried with backoff;
   * through the store's own route where it has one, which may leave some to them (item-puts.ts).
   */
  async batchPut(items: readonly Record<string, unknown>[]): Promise<void> {
    const left = this.itemPuts ? await this.itemPuts.put(this.tableName, items) : items;
    if (left.length === 0) return;
    await batchWriteItems(
      this.batchContext(true),
      left.map((Item) => ({ PutRequest: { Item } })),
    );
  }

  private batchContext(consistentRead: boolean): BatchContext {
    return {
      documentClient: this.client,
      tableName: this.tableName,
      ...this.timing,
      concurrency: BATCH_CONCURRENCY_DEFAULT,
      consistentRead,
    };
  }

  /** GetItem (strongly consistent) of one item's `doc`, parsed; `undefined` when absent. */
  async getDoc<S extends z.ZodType>(pk: string, sk: string, schema: S, what: string) {
    const item = await this.getItem(pk, sk);
    return item ? parseOrThrow(schema, item.doc, what) : undefined;
  }

  /** GetItem of a whole item, strongly consistent unless `consistent` is false. */
  async getItem(
    pk: string,
    sk: string,
    consistent = true,
  ): Promise<Record<string, unknown> | undefined> {
    const result = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { pk, sk }, ConsistentRead: consistent }),
    );
    return result.Item;
  }

  /**
   * UpdateItem that sets the given attributes (others are kept), on a condition (throws
   * ConditionalCheckFailedException when it loses). The condition may name the i-th attribute
   * and its new value as `#a<i>` and `:a<i>`.
   */
  async set(
    key: { pk: string; sk: string },
    attributes: Record<string, unknown>,
    condition: string,
    values: Record<string, unknown>,
  ): Promise<void> {
    const names: Record<string, string> = {};
    const sets: string[] = [];
    const allValues: Record<string, unknown> = { ...values };
    Object.entries(attributes).forEach(([name, value], index) => {
      names[`#a${index}`] = name;
      allValues[`:a${index}`] = value;
      sets.push(`#a${index} = :a${index}`);
    });
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: key,
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: condition,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: allValues,
      }),
    );
  }

  /**
   * Every item of a partition (by sort-key prefix or from a sort key), paging until `limit`;
   * eventually consistent unless `consistent`.
   */
  async query(
    pk: string,
    options: {
      prefix?: string;
      from?: string;
      newestFirst?: boolean;
      limit?: number;
      consistent?: boolean;
    },
  ): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    const conditions = ['pk = :pk'];
    const values: Record<string, unknown> = { ':pk': pk };
    if (options.prefix !== undefined) {
      conditions.push('begins_with(sk, :prefix)');
      values[':prefix'] = options.prefix;
    } else if (options.from !== undefined) {
      conditions.push('sk >= :from');
      values[':from'] = options.from;
    }
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: conditions.join(' AND '),
          ExpressionAttributeValues: values,
          ScanIndexForward: !options.newestFirst,
          ExclusiveStartKey: start,
          Limit: options.limit,
          ConsistentRead: options.consistent,
        }),
      );
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start && (options.limit === undefined || items.length < options.limit));
    return options.limit === undefined ? items : items.slice(0, options.limit);
  }

  /** BatchGetItem of each item's `doc`, parsed; results in the order of `keys`, absent ones left out. */
  async batchGet<S extends z.ZodType>(
    keys: { pk: string; sk: string }[],
    schema: S,
  ): Promise<z.output<S>[]> {
    const items = await this.batchGetItems(keys);
    return items.map((item) => parseOrThrow(schema, item.doc, 'stored item'));
  }

  /**
   * BatchGetItem (eventually consistent) in chunks of 100, retrying unprocessed keys after a
   * backoff (a throttled table answers with them), up to the attempts of batchGetItems, then
   * throwing a retryable BridgeError; whole items in the order of `keys`, absent ones left
   * out. Keys must differ in `pk`. With `projection`, items hold only the attributes it names
   * (`pk` among them).
   */
  async batchGetItems(
    keys: { pk: string; sk: string }[],
    projection?: { expression: string; names: Record<string, string> },
  ): Promise<Record<string, unknown>[]> {
    const found = new Map<string, Record<string, unknown>>();
    for (const item of await batchGetItems(this.batchContext(false), keys, projection)) {
      found.set(String(item.pk), item);
    }
    // BatchGet returns items in no particular order: restore the order of `keys`.
    return keys.flatMap((key) => {
      const item = found.get(key.pk);
      return item === undefined ? [] : [item];
    });
  }

  /** DeleteItem, optionally conditional (throws ConditionalCheckFailedException when it loses). */
  async delete(pk: string, sk: string, condition?: string): Promise<void> {
    await this.client.send(
      new DeleteCommand({
        TableName: this.tableName,
        Key: { pk, sk },
        ConditionExpression: condition,
      }),
    );
  }

  /** DeleteItem of an item that exists: true when it deleted it, false when there was none. */
  async tryDeleteExisting(pk: string, sk: string): Promise<boolean> {
    try {
      await this.delete(pk, sk, 'attribute_exists(pk)');
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /** One Query page (optionally by sort-key prefix), for callers that page themselves. */
  async queryPage(input: {
    pk: string;
    prefix?: string;
    /** Only sort keys below this (not with `prefix`). */
    below?: string;
    newestFirst: boolean;
    limit: number;
    start?: Record<string, unknown>;
  }) {
    const values: Record<string, unknown> = { ':pk': input.pk };
    let condition = 'pk = :pk';
    if (input.prefix !== undefined) {
      condition += ' AND begins_with(sk, :prefix)';
      values[':prefix'] = input.prefix;
    } else if (input.below !== undefined) {
      condition += ' AND sk < :below';
      values[':below'] = input.below;
    }
    return this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: condition,
        ExpressionAttributeValues: values,
        ScanIndexForward: !input.newestFirst,
        ExclusiveStartKey: input.start,
        Limit: input.limit,
      }),
    );
  }
}
