/**
 * DynamoDbBackfillJobStore: backfill jobs in the shared state table, one small item each.
 *
 * | Item | pk              | sk    | Other attributes                                            |
 * |------|-----------------|-------|-------------------------------------------------------------|
 * | job  | `BACKFILL#<id>` | `JOB` | `doc` (the job but its two maps), `outcomes`, `deliveredUntil` (maps by stream id), `ttl` |
 *
 * Why the two maps sit beside `doc`: writers add their entries with one UpdateItem each
 * (`SET outcomes.#s = if_not_exists(outcomes.#s, :o)`), so an entry another writer added since
 * the job was read is neither erased nor replaced, with no read before the write and no retry.
 * A nested path can only be set in a map that exists: both maps are written (empty) with the
 * job. A job written before they moved out of `doc` keeps its entries there; they are read as
 * the first kept, and its first {@link DynamoDbBackfillJobStore.keep} gives it empty maps.
 */
import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import type { Clock } from '../clock.ts';
import { parseOrThrow } from '../errors.ts';
import { type DocumentClient, documentClientOf } from '../state/document-client.ts';
import { withStoreErrors } from '../state/dynamodb-errors.ts';
import {
  type BackfillJob,
  type BackfillJobEntries,
  BackfillJobEntriesSchema,
  BackfillJobSchema,
  type BackfillJobStore,
  withEntries,
} from './backfill-jobs.ts';

/** How long a job item stays in the table: 7 days (TTL). */
export const BACKFILL_JOB_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** Partition key prefix of job items in the shared state table (beside `STREAM#`, `SUB#`…). */
export const BACKFILL_PK_PREFIX = 'BACKFILL#';
/** Sort key of a job item. */
export const BACKFILL_JOB_SK = 'JOB';

/**
 * Entries one UpdateItem adds at most: DynamoDB refuses an expression over 4 KB, and each
 * entry's clause (`#outcomes.#k49 = if_not_exists(#outcomes.#k49, :v49), `) is under 60 bytes.
 */
const ENTRIES_PER_UPDATE_MAX = 50;

/** A job item as stored (see the table above). */
const BackfillJobItemSchema = z.object({
  doc: BackfillJobSchema,
  outcomes: BackfillJobSchema.shape.outcomes,
  deliveredUntil: BackfillJobSchema.shape.deliveredUntil,
  ttl: z.number().optional(),
});

/** The two maps of a job item that writers add entries to. */
type EntryMap = keyof BackfillJobEntries;

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
    const { outcomes, deliveredUntil, ...doc } = parseOrThrow(
      BackfillJobSchema,
      job,
      'backfill job',
    );
    const retention = this.options.retentionMs ?? BACKFILL_JOB_RETENTION_MS;
    await this.send('PutItem', () =>
      this.client.send(
        new PutCommand({
          TableName: this.options.tableName,
          Item: {
            ...this.keyOf(doc.id),
            doc,
            outcomes: outcomes ?? {},
            deliveredUntil: deliveredUntil ?? {},
            ttl: Math.floor((this.options.clock.now() + retention) / 1000),
          },
        }),
      ),
    );
  }

  async get(id: string): Promise<BackfillJob | undefined> {
    const result = await this.send('GetItem', () =>
      this.client.send(
        new GetCommand({
          TableName: this.options.tableName,
          Key: this.keyOf(id),
          ConsistentRead: true,
        }),
      ),
    );
    return this.jobOf(id, result.Item);
  }

  async keep(id: string, entries: BackfillJobEntries): Promise<BackfillJob | undefined> {
    const parsed = parseOrThrow(BackfillJobEntriesSchema, entries, 'backfill job entries');
    const all = (['outcomes', 'deliveredUntil'] as const).flatMap((map) =>
      Object.entries(parsed[map] ?? {}).map(([streamId, value]) => ({ map, streamId, value })),
    );
    if (all.length === 0) return this.get(id);
    let stored: BackfillJob | undefined;
    for (let start = 0; start < all.length; start += ENTRIES_PER_UPDATE_MAX) {
      stored = await this.addEntries(id, all.slice(start, start + ENTRIES_PER_UPDATE_MAX));
      if (!stored) return undefined;
    }
    return stored;
  }

  /**
   * Adds `entries` absent from the item's maps in one UpdateItem; the job after, or undefined
   * when there is none. An item without the maps (written before they left `doc`) gets empty
   * ones first.
   */
  private async addEntries(
    id: string,
    entries: readonly { map: EntryMap; streamId: string; value: unknown }[],
  ): Promise<BackfillJob | undefined> {
    for (let attempt = 1; ; attempt++) {
      const item = await this.send('UpdateItem', () =>
        this.updated(id, {
          UpdateExpression: `SET ${entries
            .map(({ map }, i) => `#${map}.#k${i} = if_not_exists(#${map}.#k${i}, :v${i})`)
            .join(', ')}`,
          // Absent maps fail the condition (setting a path in them would be refused), as does an
          // absent item (an update would create one).
          ConditionExpression: 'attribute_exists(#outcomes) AND attribute_exists(#deliveredUntil)',
          ExpressionAttributeNames: {
            '#outcomes': 'outcomes',
            '#deliveredUntil': 'deliveredUntil',
            ...Object.fromEntries(entries.map(({ streamId }, i) => [`#k${i}`, streamId])),
          },
          ExpressionAttributeValues: Object.fromEntries(
            entries.map(({ value }, i) => [`:v${i}`, value]),
          ),
        }),
      );
      if (item) return this.jobOf(id, item);
      if (attempt > 1 || !(await this.addMaps(id))) return undefined;
    }
  }

  /** Gives an existing item the maps it lacks (empty); false when there is no item. */
  private async addMaps(id: string): Promise<boolean> {
    const item = await this.send('UpdateItem', () =>
      this.updated(id, {
        UpdateExpression:
          'SET #outcomes = if_not_exists(#outcomes, :empty), #deliveredUntil = if_not_exists(#deliveredUntil, :empty)',
        ConditionExpression: 'attribute_exists(#pk)',
        ExpressionAttributeNames: {
          '#pk': 'pk',
          '#outcomes': 'outcomes',
          '#deliveredUntil': 'deliveredUntil',
        },
        ExpressionAttributeValues: { ':empty': {} },
      }),
    );
    return item !== undefined;
  }

  /** Runs a conditional UpdateItem on the job's item: the item after, or undefined when the condition failed. */
  private async updated(
    id: string,
    update: Pick<
      ConstructorParameters<typeof UpdateCommand>[0],
      | 'UpdateExpression'
      | 'ConditionExpression'
      | 'ExpressionAttributeNames'
      | 'ExpressionAttributeValues'
    >,
  ): Promise<Record<string, unknown> | undefined> {
    try {
      const output = await this.client.send(
        new UpdateCommand({
          TableName: this.options.tableName,
          Key: this.keyOf(id),
          ...update,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return output.Attributes;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw error;
    }
  }

  /** The job an item holds: its document with the entries of its maps; undefined when none or expired. */
  private jobOf(id: string, item: Record<string, unknown> | undefined): BackfillJob | undefined {
    // TTL deletes lazily (up to days late): an expired item is treated as gone.
    if (!item || (typeof item.ttl === 'number' && item.ttl * 1000 <= this.options.clock.now())) {
      return undefined;
    }
    const { doc, outcomes, deliveredUntil } = parseOrThrow(
      BackfillJobItemSchema,
      item,
      `backfill job ${BACKFILL_PK_PREFIX}${id}`,
    );
    // Entries an item written before the maps left `doc` keeps there were kept first.
    return withEntries(doc, { outcomes, deliveredUntil });
  }

  private keyOf(id: string) {
    return { pk: `${BACKFILL_PK_PREFIX}${id}`, sk: BACKFILL_JOB_SK };
  }

  /** Runs one request, its failure a BridgeError (`toStoreError`) naming the operation and table. */
  private send<T>(operation: string, call: () => Promise<T>): Promise<T> {
    return withStoreErrors(this.options.tableName, operation, call);
  }
}
