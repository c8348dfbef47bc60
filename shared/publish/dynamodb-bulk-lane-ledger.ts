import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type Clock, systemRandom } from '../clock.ts';
import { parseOrThrow } from '../errors.ts';
import { type DocumentClient, documentClientOf } from '../state/document-client.ts';
import {
  BATCH_CONCURRENCY_DEFAULT,
  type BatchContext,
  batchGetItems,
  batchWriteItems,
} from '../state/dynamodb-batch.ts';
import { addCounts } from '../state/dynamodb-counters.ts';
import { withStoreErrors } from '../state/dynamodb-errors.ts';
import { withMembers } from '../with-members.ts';
import {
  BULK_LANE_MARK_TTL_MS,
  BulkLaneCountSchema,
  type BulkLaneLedger,
  type BulkSubjectMark,
  isBulkPending,
} from './bulk-lane.ts';

/** Partition key prefix of a stream's bulk-lane counts: `BULKLANE#<streamId>`, sort key `COUNT`. */
export const BULK_LANE_PK_PREFIX = 'BULKLANE#';
const BULK_LANE_SK = 'COUNT';
/**
 * Partition key prefix of a subject's mark: `BULKSUBJECT#<streamId>#<entityId>`, sort key
 * `MARK`. A partition per subject: a backfill marks thousands a second, which one partition
 * would throttle.
 */
export const BULK_SUBJECT_PK_PREFIX = 'BULKSUBJECT#';
const BULK_SUBJECT_SK = 'MARK';
/** Partition key prefix of a handled bulk event's note: `BULKEVENT#<eventId>`, sort key `HANDLED`. */
export const BULK_EVENT_PK_PREFIX = 'BULKEVENT#';
const BULK_EVENT_SK = 'HANDLED';

const subjectKey = (subject: string) => ({
  pk: `${BULK_SUBJECT_PK_PREFIX}${subject}`,
  sk: BULK_SUBJECT_SK,
});
const handledKey = (eventId: string) => ({
  pk: `${BULK_EVENT_PK_PREFIX}${eventId}`,
  sk: BULK_EVENT_SK,
});

/** Options of {@link DynamoDbBulkLaneLedger}. */
export interface DynamoDbBulkLaneLedgerOptions {
  client: DynamoDBClient;
  tableName: string;
  clock: Clock;
}

/**
 * The {@link BulkLaneLedger} in the state table: one small item per stream (`queued`, `handled`,
 * `movedAt`), grown with `ADD` (atomic: pollers and dispatchers never lose an update), no TTL
 * (a stream keeps one item); one item per subject sent to the bulk lane (its latest event's id,
 * put over the last) and one per bulk event handled, each expiring after
 * {@link BULK_LANE_MARK_TTL_MS} (written with BatchWriteItem, 25 a request: a write unit each).
 * Reads are strongly consistent: a stale `queued` or mark could let a live event overtake a bulk
 * one.
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
      batchGetItems({ ...this.batchContext(true), concurrency: 1 }, keys),
    );
    const now = clock.now();
    const pending = new Set<string>();
    for (const item of items) {
      const count = parseOrThrow(BulkLaneCountSchema, item, 'stored bulk lane count');
      if (isBulkPending(count, now)) pending.add(String(item.pk).slice(BULK_LANE_PK_PREFIX.length));
    }
    return pending;
  }

  marked(marks: readonly BulkSubjectMark[]): Promise<void> {
    const ttl = this.expiry();
    // One put per subject (a BatchWriteItem refuses a key twice): the latest mark of each.
    const latest = new Map(marks.map(({ subject, eventId }) => [subject, eventId]));
    return this.write(
      [...latest].map(([subject, eventId]) => withMembers(subjectKey(subject), { eventId, ttl })),
    );
  }

  handledEvents(eventIds: readonly string[]): Promise<void> {
    const ttl = this.expiry();
    return this.write(
      [...new Set(eventIds)].map((eventId) => withMembers(handledKey(eventId), { ttl })),
    );
  }

  async waitingSubjects(subjects: readonly string[]): Promise<Set<string>> {
    const { tableName } = this.options;
    const marks = await withStoreErrors(tableName, 'BatchGetItem', () =>
      batchGetItems(this.batchContext(true), [...new Set(subjects)].map(subjectKey)),
    );
    const latest = new Map<string, string>();
    for (const item of marks)
      latest.set(String(item.pk).slice(BULK_SUBJECT_PK_PREFIX.length), String(item.eventId));
    if (latest.size === 0) return new Set();
    const handled = await withStoreErrors(tableName, 'BatchGetItem', () =>
      batchGetItems(this.batchContext(true), [...new Set(latest.values())].map(handledKey), {
        expression: '#pk',
        names: { '#pk': 'pk' },
      }),
    );
    const handledIds = new Set(
      handled.map((item) => String(item.pk).slice(BULK_EVENT_PK_PREFIX.length)),
    );
    return new Set([...latest].filter(([, eventId]) => !handledIds.has(eventId)).map(([s]) => s));
  }

  /** The `ttl` (epoch seconds) of a mark or handled note written now. */
  private expiry(): number {
    return Math.floor((this.options.clock.now() + BULK_LANE_MARK_TTL_MS) / 1000);
  }

  private write(items: readonly Record<string, unknown>[]): Promise<void> {
    if (items.length === 0) return Promise.resolve();
    return withStoreErrors(this.options.tableName, 'BatchWriteItem', () =>
      batchWriteItems(
        this.batchContext(false),
        items.map((Item) => ({ PutRequest: { Item } })),
      ),
    );
  }

  private batchContext(consistentRead: boolean): BatchContext {
    const { tableName, clock } = this.options;
    return {
      documentClient: this.client,
      tableName,
      clock,
      random: systemRandom,
      concurrency: BATCH_CONCURRENCY_DEFAULT,
      consistentRead,
    };
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
