/**
 * DynamoDbBackfillJobStore: backfill jobs in the shared state table, each an item collection,
 * so a job of thousands of streams fits: DynamoDB caps an item at 400 KB, and the stream ids
 * and counters of 500 hotels' 6,500 streams alone pass it.
 *
 * | Item              | pk              | sk                 | Other attributes                                         |
 * |-------------------|-----------------|--------------------|----------------------------------------------------------|
 * | job               | `BACKFILL#<id>` | `JOB`              | `doc` (the job but its streams and entries), `parts` (the number of stream items), `ttl` |
 * | streams           | `BACKFILL#<id>` | `STREAMS#<nnnnnn>` | `streamIds` (a slice, in order), `deliveredAtStart` (theirs, when the job has it), `ttl` |
 * | outcome           | `BACKFILL#<id>` | `OUT#<streamId>`   | `value` (the stream's outcome), `ttl`                    |
 * | delivered until   | `BACKFILL#<id>` | `UNTIL#<streamId>` | `value` (the stream's counter), `ttl`                    |
 * | written           | `BACKFILL#<id>` | `WRITTEN#<streamId>` | `events`, `announced` (added to atomically), `ttl`     |
 * | listed            | `BACKFILLS`     | `<startedAt, 15 digits>#<id>` | `summary` (the job as listed), `ttl`            |
 *
 * The stream items are written before the job item, so a job that can be read has them all.
 * Writers add an entry as an item of its own on the condition that none is there, so an entry
 * another writer added since the job was read is neither erased nor replaced, with no retry. A
 * job is read with one Query of its collection. A job written before this layout (its streams
 * in `doc`; its entries in `doc` or in `outcomes` and `deliveredUntil` maps beside it) is read
 * as it was, its entries first kept. The written items count the events writes through the
 * bridge published in a stream during the job (`ADD`, so writers at once never conflict, with
 * one another or with the pollers' versioned saves of the stream's state); they come with the
 * job's Query, no read of their own.
 *
 * Each job is also listed under the one partition `BACKFILLS`, sorted by start, so `list` is a
 * Query of it, newest first, with no index: a backfill is an operator's act, a few a day, and
 * kept 7 days, so that partition holds hundreds of small items at most, far below what one
 * partition serves (a global secondary index would cost a write per job item and more
 * infrastructure, to list them the same way). A job started before this item existed is not
 * listed (it is read by its id as before, until it expires).
 */
import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../clock.ts';
import { forEachConcurrently } from '../concurrency.ts';
import { parseOrThrow } from '../errors.ts';
import { type DocumentClient, documentClientOf } from '../state/document-client.ts';
import { withStoreErrors } from '../state/dynamodb-errors.ts';
import type { BackfillJobPosition } from './backfill-job-cursor.ts';
import { type EntryMap, jobOfCollection, streamItemsOf } from './backfill-job-items.ts';
import {
  BACKFILL_JOB_SK,
  BACKFILL_LIST_PK,
  BACKFILL_PK_PREFIX,
  ENTRY_SK_PREFIX,
  listedKey,
  WRITTEN_SK_PREFIX,
} from './backfill-job-keys.ts';
import {
  type BackfillJob,
  type BackfillJobEntries,
  BackfillJobEntriesSchema,
  type BackfillJobPage,
  BackfillJobSchema,
  type BackfillJobStore,
  BackfillJobSummarySchema,
  type BackfillWritten,
  BackfillWrittenSchema,
  summaryOf,
} from './backfill-jobs.ts';

export { BACKFILL_JOB_SK, BACKFILL_LIST_PK, BACKFILL_PK_PREFIX } from './backfill-job-keys.ts';

/** How long a job item stays in the table: 7 days (TTL). */
export const BACKFILL_JOB_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** Writes of one call in flight at once. */
const WRITES_IN_FLIGHT = 16;

/** Options of {@link DynamoDbBackfillJobStore}. */
export interface DynamoDbBackfillJobStoreOptions {
  client: DynamoDBClient;
  tableName: string;
  clock: Clock;
  retentionMs?: number;
}

/**
 * Jobs in the shared state table (see the table above), with `ttl` (epoch seconds) so old
 * jobs expire. Reads are strongly consistent, so a job is visible to the next request right
 * after it was started.
 */
export class DynamoDbBackfillJobStore implements BackfillJobStore {
  private readonly client: DocumentClient;

  constructor(private readonly options: DynamoDbBackfillJobStoreOptions) {
    // `from` stores its translate options on the shared low-level client's config, so every
    // store on one client must pass the same ones (the other stores drop undefined values).
    this.client = documentClientOf(options.client, {
      marshallOptions: { removeUndefinedValues: true },
    });
  }

  async put(job: BackfillJob): Promise<void> {
    const {
      outcomes,
      deliveredUntil,
      streamIds,
      deliveredAtStart,
      written: _written,
      ...doc
    } = parseOrThrow(BackfillJobSchema, job, 'backfill job');
    const retention = this.options.retentionMs ?? BACKFILL_JOB_RETENTION_MS;
    const ttl = Math.floor((this.options.clock.now() + retention) / 1000);
    const parts = streamItemsOf(streamIds, deliveredAtStart);
    // Stream items and entries first: a job that can be read has all of them.
    await forEachConcurrently(parts, WRITES_IN_FLIGHT, async (part) => {
      await this.putItem({ ...this.keyOf(doc.id), ...part, ttl });
    });
    await this.addEntries(doc.id, { outcomes, deliveredUntil }, ttl);
    await this.putItem({
      ...this.keyOf(doc.id),
      sk: BACKFILL_JOB_SK,
      doc,
      parts: parts.length,
      ttl,
    });
    // Listed once it can be read.
    await this.putItem({
      pk: BACKFILL_LIST_PK,
      sk: listedKey(doc),
      summary: summaryOf(job),
      ttl,
    });
  }

  async list(options: { limit: number; after?: BackfillJobPosition }): Promise<BackfillJobPage> {
    const { after, limit } = options;
    const page = await this.send('Query', () =>
      this.client.send(
        new QueryCommand({
          TableName: this.options.tableName,
          KeyConditionExpression: after ? '#pk = :pk AND #sk < :after' : '#pk = :pk',
          ExpressionAttributeNames: { '#pk': 'pk', ...(after ? { '#sk': 'sk' } : {}) },
          ExpressionAttributeValues: {
            ':pk': BACKFILL_LIST_PK,
            ...(after ? { ':after': listedKey(after) } : {}),
          },
          ScanIndexForward: false,
          // One more than asked: whether a next page has any.
          Limit: limit + 1,
          ConsistentRead: true,
        }),
      ),
    );
    // Expired items are the oldest (each is kept as long from its start): none follows one.
    const kept = (page.Items ?? []).filter((item) => !this.expired(item));
    const jobs = kept
      .slice(0, limit)
      .map((item) => parseOrThrow(BackfillJobSummarySchema, item.summary, 'listed backfill job'));
    const last = jobs.at(-1);
    return kept.length > limit && last
      ? { jobs, next: { startedAt: last.startedAt, id: last.id } }
      : { jobs };
  }

  async get(id: string): Promise<BackfillJob | undefined> {
    const items = await this.collection(id);
    const jobItem = items.find((item) => item.sk === BACKFILL_JOB_SK);
    if (!jobItem || this.expired(jobItem)) return undefined;
    return jobOfCollection(id, jobItem, items);
  }

  async addWritten(id: string, streamId: string, counts: BackfillWritten): Promise<void> {
    const added = parseOrThrow(BackfillWrittenSchema, counts, 'written events');
    const retention = this.options.retentionMs ?? BACKFILL_JOB_RETENTION_MS;
    const ttl = Math.floor((this.options.clock.now() + retention) / 1000);
    await this.send('UpdateItem', () =>
      this.client.send(
        new UpdateCommand({
          TableName: this.options.tableName,
          Key: { ...this.keyOf(id), sk: `${WRITTEN_SK_PREFIX}${streamId}` },
          UpdateExpression:
            'ADD #events :events, #announced :announced SET #ttl = if_not_exists(#ttl, :ttl)',
          ExpressionAttributeNames: {
            '#events': 'events',
            '#announced': 'announced',
            '#ttl': 'ttl',
          },
          ExpressionAttributeValues: {
            ':events': added.events,
            ':announced': added.announced,
            ':ttl': ttl,
          },
        }),
      ),
    );
  }

  async keep(id: string, entries: BackfillJobEntries): Promise<BackfillJob | undefined> {
    const parsed = parseOrThrow(BackfillJobEntriesSchema, entries, 'backfill job entries');
    const jobItem = await this.send('GetItem', () =>
      this.client.send(
        new GetCommand({
          TableName: this.options.tableName,
          Key: { ...this.keyOf(id), sk: BACKFILL_JOB_SK },
          ConsistentRead: true,
        }),
      ),
    );
    const item = jobItem.Item;
    if (!item || this.expired(item)) return undefined;
    const ttl = typeof item.ttl === 'number' ? item.ttl : undefined;
    await this.addEntries(id, parsed, ttl);
    return this.get(id);
  }

  /**
   * Adds each entry as an item of its own, unless one is there already (the first kept
   * stands): a conditional put each, `WRITES_IN_FLIGHT` at a time.
   */
  private async addEntries(
    id: string,
    entries: BackfillJobEntries,
    ttl: number | undefined,
  ): Promise<void> {
    const writes = (['outcomes', 'deliveredUntil'] as const).flatMap((map: EntryMap) =>
      Object.entries(entries[map] ?? {}).map(([streamId, value]) => ({
        ...this.keyOf(id),
        sk: `${ENTRY_SK_PREFIX[map]}${streamId}`,
        value,
        ttl,
      })),
    );
    await forEachConcurrently(writes, WRITES_IN_FLIGHT, async (item) => {
      await this.send('PutItem', () =>
        this.client
          .send(
            new PutCommand({
              TableName: this.options.tableName,
              Item: item,
              ConditionExpression: 'attribute_not_exists(#pk)',
              ExpressionAttributeNames: { '#pk': 'pk' },
            }),
          )
          .catch((error: unknown) => {
            // One is there: the first kept stands.
            if (!(error instanceof ConditionalCheckFailedException)) throw error;
          }),
      );
    });
  }

  /** Every item of a job's collection (Query pages followed to the end). */
  private async collection(id: string): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.send('Query', () =>
        this.client.send(
          new QueryCommand({
            TableName: this.options.tableName,
            KeyConditionExpression: '#pk = :pk',
            ExpressionAttributeNames: { '#pk': 'pk' },
            ExpressionAttributeValues: { ':pk': this.keyOf(id).pk },
            ConsistentRead: true,
            ExclusiveStartKey: start,
          }),
        ),
      );
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    return items;
  }

  /** TTL deletes lazily (up to days late): an expired item is treated as gone. */
  private expired(item: Record<string, unknown>): boolean {
    return typeof item.ttl === 'number' && item.ttl * 1000 <= this.options.clock.now();
  }

  private putItem(item: Record<string, unknown>): Promise<unknown> {
    return this.send('PutItem', () =>
      this.client.send(new PutCommand({ TableName: this.options.tableName, Item: item })),
    );
  }

  private keyOf(id: string) {
    return { pk: `${BACKFILL_PK_PREFIX}${id}` };
  }

  /** Runs one request, its failure a BridgeError (`toStoreError`) naming the operation and table. */
  private send<T>(operation: string, call: () => Promise<T>): Promise<T> {
    return withStoreErrors(this.options.tableName, operation, call);
  }
}
