import { setTimeout as sleep } from 'node:timers/promises';
import {
  type AttributeValue,
  ConditionalCheckFailedException,
  DeleteItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  ScanCommand,
} from '@aws-sdk/client-dynamodb';
import { STATE_TABLE_TTL_ATTRIBUTE } from '../state/dynamodb-table.ts';

/** Items a sweep reads per Scan page: a few milliseconds of the loop's time at most. */
export const EXPIRED_SWEEP_PAGE_ITEMS = 500;
/** The pause between two pages of a sweep, so polls and deliveries keep their turn. */
export const EXPIRED_SWEEP_PAUSE_MS = 50;

/** An item's TTL is before `:now`: what a sweep reads by, and deletes on. */
const STILL_EXPIRED = '#ttl < :now';
const TTL_NAME = { '#ttl': STATE_TABLE_TTL_ATTRIBUTE };

/** What {@link removeExpiredItems} needs. */
export interface RemoveExpiredItemsOptions {
  client: Pick<DynamoDBClient, 'send'>;
  tableName: string;
  /** Now, in epoch seconds (the TTL attribute's unit). */
  nowSeconds: () => number;
  /** Ends the sweep between two pages (what it removed so far stays removed). */
  signal?: AbortSignal;
  /** Items read per Scan page (default {@link EXPIRED_SWEEP_PAGE_ITEMS}). */
  pageItems?: number;
  /** Pause between pages (default {@link EXPIRED_SWEEP_PAUSE_MS}). */
  pauseMs?: number;
}

/**
 * Removes the items of `tableName` whose TTL attribute (`ttl`, epoch seconds) has passed, as
 * DynamoDB's Time to Live does in AWS, where dynalite has none: the local run's events,
 * deliveries, tombstones and leases would otherwise stay in its data dir for good. Reads the
 * table page by page (the keys of the items whose TTL has passed) and deletes each on the
 * condition that it is still expired, so an item written again meanwhile (a lease renewed)
 * stays, as AWS's TTL checks too. Items without a numeric TTL are never removed. Returns how
 * many it removed.
 * @example const removed = await removeExpiredItems({ client, tableName, nowSeconds: () => Math.floor(clock.now() / 1000) });
 */
export async function removeExpiredItems(options: RemoveExpiredItemsOptions): Promise<number> {
  const { client, tableName, signal } = options;
  let removed = 0;
  let startKey: Attributes | undefined;
  do {
    if (signal?.aborted) break;
    const now = { ':now': { N: String(options.nowSeconds()) } };
    const page = await client.send(
      new ScanCommand({
        TableName: tableName,
        Limit: options.pageItems ?? EXPIRED_SWEEP_PAGE_ITEMS,
        FilterExpression: STILL_EXPIRED,
        ProjectionExpression: 'pk, sk',
        ExpressionAttributeNames: TTL_NAME,
        ExpressionAttributeValues: now,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    for (const key of page.Items ?? []) {
      if (await deleteIfStillExpired(client, tableName, key, now)) removed++;
    }
    startKey = page.LastEvaluatedKey;
    if (startKey) await sleep(options.pauseMs ?? EXPIRED_SWEEP_PAUSE_MS);
  } while (startKey);
  return removed;
}

type Attributes = Record<string, AttributeValue>;

/** Deletes the item at `key` if its TTL is still before `:now`; whether it did. */
async function deleteIfStillExpired(
  client: Pick<DynamoDBClient, 'send'>,
  tableName: string,
  key: Attributes,
  now: Attributes,
): Promise<boolean> {
  try {
    await client.send(
      new DeleteItemCommand({
        TableName: tableName,
        Key: key,
        ConditionExpression: STILL_EXPIRED,
        ExpressionAttributeNames: TTL_NAME,
        ExpressionAttributeValues: now,
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** The item that records when the store was last swept (no TTL: a sweep never removes it). */
const LAST_SWEEP_KEY = { pk: { S: 'LOCAL#EXPIRY' }, sk: { S: 'LAST_SWEEP' } };

/**
 * When `tableName` was last swept for expired items (epoch ms), as {@link noteExpirySweep}
 * recorded it; undefined when it never was.
 */
export async function lastExpirySweep(
  client: Pick<DynamoDBClient, 'send'>,
  tableName: string,
): Promise<number | undefined> {
  const { Item } = await client.send(
    new GetItemCommand({ TableName: tableName, Key: LAST_SWEEP_KEY, ConsistentRead: true }),
  );
  const at = Number(Item?.at?.N);
  return Number.isFinite(at) ? at : undefined;
}

/** Records that `tableName` was swept at `atMs` (epoch ms), for the next run to read. */
export async function noteExpirySweep(
  client: Pick<DynamoDBClient, 'send'>,
  tableName: string,
  atMs: number,
): Promise<void> {
  await client.send(
    new PutItemCommand({
      TableName: tableName,
      Item: { ...LAST_SWEEP_KEY, at: { N: String(atMs) } },
    }),
  );
}
