import type { BackfillJobPosition } from './backfill-job-cursor.ts';

/** Partition key prefix of job items in the shared state table (beside `STREAM#`, `SUB#`…). */
export const BACKFILL_PK_PREFIX = 'BACKFILL#';
/** Sort key of a job item. */
export const BACKFILL_JOB_SK = 'JOB';
/** Partition key of the items listing every job by start. */
export const BACKFILL_LIST_PK = 'BACKFILLS';

/** Digits of a start instant in a listed item's sort key: they sort as the numbers do. */
const STARTED_AT_DIGITS = 15;

/** Streams per stream item: ids of up to ~90 bytes and their counters stay far below 400 KB. */
export const STREAMS_PER_ITEM = 1000;

/** Sort key prefix of a job's stream items (`STREAMS#<nnnnnn>`). */
export const STREAMS_SK_PREFIX = 'STREAMS#';
/** Sort key prefixes of a job's entry items, by the map they belong to. */
export const ENTRY_SK_PREFIX = { outcomes: 'OUT#', deliveredUntil: 'UNTIL#' } as const;
/** Sort key prefix of a job's written items (`WRITTEN#<streamId>`). */
export const WRITTEN_SK_PREFIX = 'WRITTEN#';

/** The sort key of a job's listed item: newest first is the keys' descending order. Pure. */
export function listedKey(job: BackfillJobPosition): string {
  return `${String(job.startedAt).padStart(STARTED_AT_DIGITS, '0')}#${job.id}`;
}
