import { z } from 'zod';
import { EntityTypeSchema } from '../changes/entity-types.ts';
import { hashedIdPattern } from '../changes/event-id.ts';
import { parseOrThrow } from '../errors.ts';
import type { BackfillJobPosition } from './backfill-job-cursor.ts';

/** What every backfill job's id starts with; the rest is a hash's (hashedId in event-id.ts). */
export const BACKFILL_ID_PREFIX = 'bf_';

/** Shape of every backfill job's id, as `backfill` and `backfill list` print it: `bf_` and 26 characters. */
export const BACKFILL_ID_PATTERN = hashedIdPattern(BACKFILL_ID_PREFIX);

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
 * Events that writes through the bridge published in a stream while the job's part of it ran
 * (see BackfillJobStore.addWritten): `events` all of them (the dispatcher counts them among the
 * stream's), `announced` those that were the job's own `created` of an entity sent ahead of its
 * change (among the job's events published).
 */
export const BackfillWrittenSchema = z.object({
  events: z.number().int().nonnegative(),
  announced: z.number().int().nonnegative(),
});
/** Events written through the bridge in a stream of a job (see {@link BackfillWrittenSchema}). */
export type BackfillWritten = z.infer<typeof BackfillWrittenSchema>;

/**
 * A backfill job: which streams it started backfills of, when, and the numbers progress is
 * measured against. Progress is derived from the stream states the pollers keep and the
 * dispatcher's delivery counters (see backfill.ts); the item is written whole when the job
 * starts, and entries are added to its `outcomes` and `deliveredUntil` as its streams end
 * ({@link BackfillJobStore.keep}): an entry once there is never replaced.
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
   * The stream-wide delivery counter of each stream when the job started, kept by earlier
   * versions; no longer read (the job counts the deliveries of the events detected since it
   * started, see deliveryRange in backfill.ts).
   */
  deliveredAtStart: z.record(z.string(), z.number().int().nonnegative()).optional(),
  /**
   * Epoch ms a later backfill or reset took each stream over: the job counts the deliveries of
   * the stream's events detected before it (the later job's are its own). Absent until one is
   * taken over. (Earlier versions kept a delivery counter's value here, below any job start.)
   */
  deliveredUntil: z.record(z.string(), z.number().int().nonnegative()).optional(),
  /** Each ended stream's outcome, by stream id; absent until one is read as ended. */
  outcomes: z.record(z.string(), BackfillStreamOutcomeSchema).optional(),
  /**
   * True when the job was started for named connections (POST /backfill's `connections`): its
   * progress reads which of its streams are still configured from those connections alone (in
   * AWS, their items), not from the listing of every connection. Absent: started for every
   * connection (or stored before this field existed), read from the whole listing.
   */
  connectionsNamed: z.literal(true).optional(),
  /**
   * What writes through the bridge published in each stream during the job, by stream id
   * (BackfillJobStore.addWritten); read with the job, never written by `put`. Absent: none.
   */
  written: z.record(z.string(), BackfillWrittenSchema).optional(),
});

/** A backfill job (see {@link BackfillJobSchema}). */
export type BackfillJob = z.infer<typeof BackfillJobSchema>;

/**
 * What a listing of jobs holds of each ({@link BackfillJobStore.list}): the job as it was started,
 * its streams counted, not named (a job of 500 hotels names 6,500). Its progress is read per
 * stream (GET /backfill/{id}), so a listing holds none.
 */
export const BackfillJobSummarySchema = z.object({
  id: BackfillJobSchema.shape.id,
  startedAt: BackfillJobSchema.shape.startedAt,
  emit: BackfillJobSchema.shape.emit,
  entities: BackfillJobSchema.shape.entities,
  streamCount: z.number().int().nonnegative(),
  connectionsNamed: BackfillJobSchema.shape.connectionsNamed,
});
/** A job as a listing holds it (see {@link BackfillJobSummarySchema}). */
export type BackfillJobSummary = z.infer<typeof BackfillJobSummarySchema>;

/**
 * The summary of `job` a listing holds. Pure.
 * @example summaryOf(job).streamCount // job.streamIds.length
 */
export function summaryOf(job: BackfillJob): BackfillJobSummary {
  return {
    id: job.id,
    startedAt: job.startedAt,
    emit: job.emit,
    entities: job.entities,
    streamCount: job.streamIds.length,
    ...(job.connectionsNamed ? { connectionsNamed: true } : {}),
  };
}

/**
 * Newest first: the later start first, then (the same millisecond) the greater id; a negative
 * number when `a` comes first. Pure.
 */
export function newestFirst(a: BackfillJobPosition, b: BackfillJobPosition): number {
  if (a.startedAt !== b.startedAt) return b.startedAt - a.startedAt;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** A page of jobs, newest first; `next` where later pages hold more (the last one's position). */
export interface BackfillJobPage {
  jobs: BackfillJobSummary[];
  next?: BackfillJobPosition;
}

/**
 * Entries to add to a job's `outcomes` and `deliveredUntil` ({@link BackfillJobStore.keep}).
 */
export const BackfillJobEntriesSchema = BackfillJobSchema.pick({
  outcomes: true,
  deliveredUntil: true,
});
/** Entries to add to a job (see {@link BackfillJobEntriesSchema}). */
export type BackfillJobEntries = z.infer<typeof BackfillJobEntriesSchema>;

/**
 * `job` with those of `entries` it lacks added to its `outcomes` and `deliveredUntil`; an entry
 * the job has stays as it is (the first kept wins). A map left empty is absent. Pure.
 * @example withEntries(job, { outcomes: { 'main:customer': outcome } }).outcomes
 */
export function withEntries(job: BackfillJob, entries: BackfillJobEntries): BackfillJob {
  const outcomes = { ...entries.outcomes, ...job.outcomes };
  const deliveredUntil = { ...entries.deliveredUntil, ...job.deliveredUntil };
  return {
    ...job,
    outcomes: Object.keys(outcomes).length > 0 ? outcomes : undefined,
    deliveredUntil: Object.keys(deliveredUntil).length > 0 ? deliveredUntil : undefined,
  };
}

/**
 * Storage of backfill jobs. Several writers change a running job at once (its progress
 * readings, a connection's removal, a later backfill or reset taking its streams over), each
 * from the copy it read: they add entries ({@link BackfillJobStore.keep}), which never replace
 * one another's. Implementations: {@link MemoryBackfillJobStore}, DynamoDbBackfillJobStore.
 */
export interface BackfillJobStore {
  /**
   * Stores a job just started (replacing one with the same id, which a new job's random id
   * never has). A running job is changed with {@link BackfillJobStore.keep} only.
   * @throws ValidationError naming the field of a malformed job, before writing.
   */
  put(job: BackfillJob): Promise<void>;
  /** Reads a job; `undefined` when unknown or expired. */
  get(id: string): Promise<BackfillJob | undefined>;
  /**
   * The jobs kept (not expired), newest first ({@link newestFirst}), at most `limit`, those after
   * `after` when given; `next` when more follow.
   */
  list(options: { limit: number; after?: BackfillJobPosition }): Promise<BackfillJobPage>;
  /**
   * Adds to the stored job those of `entries` its `outcomes` and `deliveredUntil` lack, each on
   * its own and whatever other writers add meanwhile; an entry already there stays as it is.
   * Answers the job as stored after it; `undefined` for a job unknown or expired (nothing is
   * written). Safe to repeat.
   * @throws ValidationError naming the field of a malformed entry, before writing.
   */
  keep(id: string, entries: BackfillJobEntries): Promise<BackfillJob | undefined>;
  /**
   * Adds `counts` to what writes through the bridge published in `streamId` during job `id`
   * (its `written`): an atomic addition of its own, apart from the stream's state (which the
   * pollers save with a version) and from the job's other entries. Nothing for an unknown job.
   */
  addWritten(id: string, streamId: string, counts: BackfillWritten): Promise<void>;
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

  async list(options: { limit: number; after?: BackfillJobPosition }): Promise<BackfillJobPage> {
    const { after } = options;
    const sorted = [...this.jobs.values()]
      .filter((job) => after === undefined || newestFirst(after, job) < 0)
      .sort(newestFirst);
    const jobs = sorted.slice(0, options.limit).map(summaryOf);
    const last = jobs.at(-1);
    return sorted.length > options.limit && last
      ? { jobs, next: { startedAt: last.startedAt, id: last.id } }
      : { jobs };
  }

  async keep(id: string, entries: BackfillJobEntries): Promise<BackfillJob | undefined> {
    const parsed = parseOrThrow(BackfillJobEntriesSchema, entries, 'backfill job entries');
    const job = this.jobs.get(id);
    if (!job) return undefined;
    const stored = structuredClone(withEntries(job, parsed));
    this.jobs.set(id, stored);
    return structuredClone(stored);
  }

  async addWritten(id: string, streamId: string, counts: BackfillWritten): Promise<void> {
    const added = parseOrThrow(BackfillWrittenSchema, counts, 'written events');
    const job = this.jobs.get(id);
    if (!job) return;
    const before = job.written?.[streamId] ?? { events: 0, announced: 0 };
    job.written = {
      ...job.written,
      [streamId]: {
        events: before.events + added.events,
        announced: before.announced + added.announced,
      },
    };
  }
}
