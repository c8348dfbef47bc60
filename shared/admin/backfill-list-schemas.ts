import { z } from 'zod';
import { BACKFILL_JOB_CURSOR_MAX_CHARS, BackfillJobCursorSchema } from './backfill-job-cursor.ts';
import { limitQuerySchema } from './schemas.ts';

/** The most jobs one answer of `GET /backfill` holds, its `limit`'s maximum. */
export const BACKFILL_LIST_PAGE_MAX = 100;
/** The jobs an answer of `GET /backfill` holds without a `limit`. */
export const BACKFILL_LIST_PAGE_DEFAULT = 20;

const CURSOR_REFUSAL = 'must be a nextCursor a previous page gave';

/** Query of `GET /backfill`: a page of jobs, newest first. */
export const BackfillJobListQuerySchema = z
  .object({
    limit: limitQuerySchema(BACKFILL_LIST_PAGE_MAX).meta({
      description: `At most this many jobs, newest first (default ${BACKFILL_LIST_PAGE_DEFAULT}, at most ${BACKFILL_LIST_PAGE_MAX})`,
    }),
    cursor: z
      .string()
      .max(BACKFILL_JOB_CURSOR_MAX_CHARS, { error: CURSOR_REFUSAL })
      .refine((text) => BackfillJobCursorSchema.safeParse(text).success, { error: CURSOR_REFUSAL })
      .optional()
      .meta({
        description:
          "The page after a previous one: that page's nextCursor, opaque (it encodes the last job that page held)",
      }),
  })
  // A misspelt parameter would answer the first page as if it were another: refused, named.
  .strict();

/**
 * A job as `GET /backfill` lists it: as it was started, its streams counted. Its progress is
 * `GET /backfill/{id}?streams=0`'s (a reading of each of its streams, so not listed).
 */
export const BackfillJobListItemSchema = z.object({
  id: z.string(),
  startedAt: z.string(),
  emit: z.boolean(),
  /** The entity types of its streams. */
  entities: z.array(z.string()),
  /** How many streams it backfills. */
  streamCount: z.number().int().nonnegative(),
  /** Started for named connections (`connections`), not every enabled one. */
  connectionsNamed: z.boolean(),
});

/** `GET /backfill`: the jobs kept (7 days), newest first, a page of them. */
export const BackfillJobListSchema = z.object({
  jobs: z.array(BackfillJobListItemSchema),
  /** Present when older jobs are left out: pass it as `cursor` for the next page. */
  nextCursor: z.string().optional(),
});
