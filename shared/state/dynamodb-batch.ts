import { BatchGetCommand, BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Clock, RandomSource } from '../clock.ts';
import { forEachConcurrently } from '../concurrency.ts';
import { BridgeError } from '../errors.ts';
import type { DocumentClient } from './document-client.ts';
import type { ItemKey } from './dynamodb-items.ts';

/** AWS limit: keys per BatchGetItem request. */
export const BATCH_GET_MAX_KEYS = 100;
/** AWS limit: put or delete requests per BatchWriteItem request. */
export const BATCH_WRITE_MAX_ITEMS = 25;
/** Batch requests of one call in flight at once: hides DynamoDB's per-request latency. */
export const BATCH_CONCURRENCY_DEFAULT = 8;
/** Attempts per batch request, the first included, before unprocessed work is an error. */
export const BATCH_MAX_ATTEMPTS = 8;
/** Backoff before the first retry of unprocessed work, in ms; doubles per attempt. */
export const BATCH_RETRY_BASE_DELAY_MS = 25;
/** Upper bound of one backoff, in ms. */
export const BATCH_RETRY_MAX_DELAY_MS = 2_000;

/** What the batch helpers need: the table, a document client, and time and randomness for backoff. */
export interface BatchContext {
  documentClient: DocumentClient;
  tableName: string;
  clock: Clock;
  random: RandomSource;
  concurrency: number;
  consistentRead: boolean;
}

/** One request of a BatchWriteItem call. */
export type WriteRequest =
  | { PutRequest: { Item: Record<string, unknown> } }
  | { DeleteRequest: { Key: Record<string, unknown> } };

/**
 * Delay before retry number `attempt` (1 = first retry): exponential with "equal jitter"
 * (half fixed, half random), so a throttled table always gets some relief and retries of
 * parallel chunks spread out.
 * @example batchRetryDelayMs(1, () => 0.5) // 18.75
 */
export function batchRetryDelayMs(attempt: number, random: RandomSource): number {
  const ceiling = Math.min(
    BATCH_RETRY_MAX_DELAY_MS,
    BATCH_RETRY_BASE_DELAY_MS * 2 ** (attempt - 1),
  );
  return ceiling / 2 + random() * (ceiling / 2);
}

/**
 * Reads items by key with BatchGetItem, 100 keys per request, `concurrency` requests at a time,
 * retrying UnprocessedKeys with backoff. Keys must be distinct. Returns the items found.
 * Throws a retryable BridgeError when keys stay unprocessed after {@link BATCH_MAX_ATTEMPTS}.
 */
export async function batchGetItems(
  context: BatchContext,
  keys: readonly ItemKey[],
  projection?: { expression: string; names: Record<string, string> },
): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  await forEachConcurrently(chunk(keys, BATCH_GET_MAX_KEYS), context.concurrency, async (part) => {
    let pending: Record<string, unknown>[] = [...part];
    for (let attempt = 1; pending.length > 0; attempt++) {
      if (attempt > 1) await backoff(context, attempt - 1, 'BatchGetItem', pending.length);
      const output = await context.documentClient.send(
        new BatchGetCommand({
          RequestItems: {
            [context.tableName]: {
              Keys: pending,
              ConsistentRead: context.consistentRead,
              ...(projection && {
                ProjectionExpression: projection.expression,
                ExpressionAttributeNames: projection.names,
              }),
            },
          },
        }),
      );
      found.push(...(output.Responses?.[context.tableName] ?? []));
      pending = output.UnprocessedKeys?.[context.tableName]?.Keys ?? [];
    }
  });
  return found;
}

/**
 * Writes put/delete requests with BatchWriteItem, 25 per request, `concurrency` requests at a
 * time, retrying only the UnprocessedItems with backoff. Keys must be distinct.
 * Throws a retryable BridgeError when items stay unprocessed after {@link BATCH_MAX_ATTEMPTS}.
 */
export async function batchWriteItems(
  context: BatchContext,
  requests: readonly WriteRequest[],
): Promise<void> {
  await forEachConcurrently(
    chunk(requests, BATCH_WRITE_MAX_ITEMS),
    context.concurrency,
    async (part) => {
      let pending: readonly WriteRequest[] = part;
      for (let attempt = 1; pending.length > 0; attempt++) {
        if (attempt > 1) await backoff(context, attempt - 1, 'BatchWriteItem', pending.length);
        const output = await context.documentClient.send(
          new BatchWriteCommand({ RequestItems: { [context.tableName]: [...pending] } }),
        );
        pending = (output.UnprocessedItems?.[context.tableName] ?? []).flatMap(toWriteRequest);
      }
    },
  );
}

function toWriteRequest(request: {
  PutRequest?: { Item: Record<string, unknown> | undefined } | undefined;
  DeleteRequest?: { Key: Record<string, unknown> | undefined } | undefined;
}): WriteRequest[] {
  if (request.PutRequest?.Item) return [{ PutRequest: { Item: request.PutRequest.Item } }];
  if (request.DeleteRequest?.Key) return [{ DeleteRequest: { Key: request.DeleteRequest.Key } }];
  return [];
}

async function backoff(
  context: BatchContext,
  retry: number,
  operation: string,
  pendingCount: number,
): Promise<void> {
  if (retry >= BATCH_MAX_ATTEMPTS) {
    throw new BridgeError(
      `DynamoDB ${operation} on table ${context.tableName} left ${pendingCount} items unprocessed after ${BATCH_MAX_ATTEMPTS} attempts`,
      { retryable: true },
    );
  }
  await context.clock.sleep(batchRetryDelayMs(retry, context.random));
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const parts: T[][] = [];
  for (let start = 0; start < items.length; start += size) {
    parts.push(items.slice(start, start + size));
  }
  return parts;
}
