import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { EntityTypeSchema } from '../changes/entity-types.ts';
import type { Clock } from '../clock.ts';
import { BridgeError, parseOrThrow } from '../errors.ts';
import { type DocumentClient, documentClientOf } from '../state/document-client.ts';

/**
 * What ended a stream's part of a job before it completed: `superseded`, a later backfill or
 * reset of the stream took over; `removed`, its connection was removed or disabled.
 */
export const BackfillEndingSchema = z.enum(['superseded', 'removed']);
/** What ended a part early (see {@link BackfillEndingSchema}). */
export type BackfillEnding = z.infer<typeof BackfillEndingSchema>;

/**
 * How one stream's part of a job ended, kept on the job the first time it is read as ended:
 * the stream's own figures go on (a later backfill of the stream starts them again), the job's
 * stay. `endedBy`: null when the stream completed its part; `superseded` when a later backfill
 * or reset of the stream took over before; `removed` when its connection was removed or
 * disabled before.
 */
export const BackfillStreamOutcomeSchema = z.object({
  /** Epoch ms the part completed (or was first seen ended). */
  doneAt: z.number().int(),
  recordsRead: z.number().int().nonnegative(),
  eventsPublished: z.number().int().nonnegative(),
  endedBy: BackfillEndingSchema.nullable(),
});
/** How one stream's part of a job ended (see {@link BackfillStreamOutcomeSchema}). */
export type BackfillStreamOutcome = z.infer<typeof BackfillStreamOutcomeSchema>;

/**
 * A backfill job: which streams it started backfills of, when, and the numbers progress is
 * measured against. Progress is derived from the stream states the pollers keep and the
 * dispatcher's delivery counters (see backfill.ts); the item is written when the job starts and
 * again as its streams are first read as ended ({@link BackfillStreamOutcomeSchema}).
 */
export const BackfillJobSchema = z.object({
  id: z.string().min(1),
  /** Epoch ms the streams were reset. */
  startedAt: z.number().int(),
  emit: z.boolean(),
  entities: z.array(EntityTypeSchema),
  streamIds: z.array(z.string().min(1)),
  /** Where a first sync starts (WindowSettings.historyStartMs), epoch ms. */
  historyStartMs: z.number().int(),
  /** A stream is done when its watermark reaches this instant (job start minus settle lag), epoch ms. */
  doneAtMs: z.number().int(),
  /**
   * The delivery counter of each stream when the job started (delivery counters only grow, so
   * the job's deliveries are the difference). Absent on jobs stored before it existed: 0.
   */
  deliveredAtStart: z.record(z.string(), z.number().int().nonnegative()).optional(),
  /**
   * The delivery counter of each stream when a later backfill took it over: the job's webhooks
   * delivered stop there (the later job's are its own). Absent until one is taken over.
   */
  deliveredUntil: z.record(z.string(), z.number().int().nonnegative()).optional(),
  /** Each ended stream's outcome, by stream id; absent until one is read as ended. */
  outcomes: z.record(z.string(), BackfillStreamOutcomeSchema).optional(),
});

/** A backfill job (see {@link BackfillJobSchema}). */
export type BackfillJob = z.infer<typeof BackfillJobSchema>;

/** Storage of backfill jobs. Implementations: {@link MemoryBackfillJobStore}, {@link DynamoDbBackfillJobStore}. */
export interface BackfillJobStore {
  /** Stores a job (replacing one with the same id). */
  put(job: BackfillJob): Promise<void>;
  /** Reads a job; `undefined` when unknown or expired. */
  get(id: string): Promise<BackfillJob | undefined>;
}

/** Jobs in memory: tests, and runs that need no history across restarts. Values are copies. */
export class MemoryBackfillJobStore implements BackfillJobStore {
  private readonly jobs = new Map<string, BackfillJob>();

  async put(job: BackfillJob): Promise<void> {
    this.jobs.set(job.id, structuredClone(parseOrThrow(BackfillJobSchema, job, 'backfill job')));
  }

  async get(id: string): Promise<BackfillJob | undefined> {
    const job = this.jobs.get(id);
    return job ? structuredClone(job) : undefined;
  }
}

/** How long a job item stays in the table: 7 days (TTL). */
export const BACKFILL_JOB_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** Partition key prefix of job items in the shared state table (beside `STREAM#`, `SUB#`…). */
export const BACKFILL_PK_PREFIX = 'BACKFILL#';
/** Sort key of a job item. */
export const BACKFILL_JOB_SK = 'JOB';

/** Options of {@link DynamoDbBackfillJobStore}. */
export interface DynamoDbBackfillJobStoreOptions {
  client: DynamoDBClient;
  tableName: string;
  clock: Clock;
  retentionMs?: number;
}

/**
 * Jobs in the shared state table, one small item each: pk `BACKFILL#<id>`, sk `JOB`, the
 * job in `doc`, and `ttl` (epoch seconds) so old jobs expire. Reads are strongly
 * consistent, so a job is visible to the next request right after it was started.
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
    const doc = parseOrThrow(BackfillJobSchema, job, 'backfill job');
    const retention = this.options.retentionMs ?? BACKFILL_JOB_RETENTION_MS;
    await this.send('PutItem', () =>
      this.client.send(
        new PutCommand({
          TableName: this.options.tableName,
          Item: {
            pk: `${BACKFILL_PK_PREFIX}${doc.id}`,
            sk: BACKFILL_JOB_SK,
            doc,
            ttl: Math.floor((this.options.clock.now() + retention) / 1000),
          },
        }),
      ),
    );
  }

  async get(id: string): Promise<BackfillJob | undefined> {
    const key = { pk: `${BACKFILL_PK_PREFIX}${id}`, sk: BACKFILL_JOB_SK };
    const result = await this.send('GetItem', () =>
      this.client.send(
        new GetCommand({ TableName: this.options.tableName, Key: key, ConsistentRead: true }),
      ),
    );
    const item = result.Item;
    // TTL deletes lazily (up to days late): an expired item is treated as gone.
    if (!item || (typeof item.ttl === 'number' && item.ttl * 1000 <= this.options.clock.now())) {
      return undefined;
    }
    return parseOrThrow(BackfillJobSchema, item.doc, `backfill job ${key.pk}`);
  }

  private async send<T>(operation: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      const name = error instanceof Error ? error.name : 'Error';
      throw new BridgeError(
        `${operation} of a backfill job on table ${this.options.tableName} failed (${name})`,
        {
          cause: error,
          retryable: name !== 'ResourceNotFoundException' && name !== 'ValidationException',
        },
      );
    }
  }
}
