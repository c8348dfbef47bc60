import { z } from 'zod';
import { StreamWindowSchema } from './stream-window-schema.ts';

/**
 * A backfill of a stream that had completed its first sync: a second, bulk read of the history
 * `[history start, endUtc)` beside the stream's live polls, which go on from their own
 * watermark, so no live change waits or is lost meanwhile. The pass keeps its own window,
 * watermark and counters; its records are judged against the kept snapshots (a stale one gives
 * `updated`), and with `emit` every entity that existed when the backfill began is published
 * once as `created` under an id of this backfill (see ChangeContext.backfill in polling).
 */
export const BackfillPassSchema = z.object({
  kind: z.literal('pass'),
  jobId: z.string().min(1),
  emit: z.boolean(),
  /** Epoch ms the backfill began. */
  startedAt: z.number().int(),
  /** ISO instant: the pass reads UpdatedUtc up to here (the stream's watermark when the backfill began). */
  endUtc: z.string(),
  /** ISO instant the pass has read up to; null before its first window. */
  watermark: z.string().nullable(),
  window: StreamWindowSchema.nullable(),
  recordsRead: z.number().int().nonnegative(),
  eventsPublished: z.number().int().nonnegative(),
  /**
   * The stream's own `eventsPublished` (its live polls') when the pass began, so the job knows
   * how many events of the stream it waits to see delivered. Absent on passes stored before it
   * existed.
   */
  liveEventsAtStart: z.number().int().nonnegative().optional(),
  /**
   * Of `eventsPublished`, those the stream's own `eventsPublished` counts too: the `created`
   * events live polls sent ahead of a live change (see PageCounts.announced), and the events of
   * a listing poll that was the whole pass (listingPassDone). Absent: none.
   */
  eventsAnnounced: z.number().int().nonnegative().optional(),
  /**
   * Epoch ms up to which a live poll that read the stream's state before the pass was saved on
   * it stored snapshots (its own save then lost to the pass: see noteWritesUnawareOfPass): the
   * stream's live polls take those for snapshots stored before the backfill, so the entities whose
   * change that poll published without the backfill's `created` ahead still get one. Absent: none.
   */
  unawareWritesUntil: z.number().int().optional(),
  /**
   * Epoch ms the pass was done reading its last window (the one reaching `endUtc`); absent while
   * it reads, and on passes stored before it existed. The pass reads a record where it stands
   * when the pass gets there: a live change that moves an entity past `endUtc` before then may
   * have taken it from a place the pass read after, and the live poll sends its `created` (see
   * BackfillContext.readToEndAt in polling).
   */
  readToEndAt: z.number().int().optional(),
  /** Epoch ms the pass completed; null while it runs. */
  doneAt: z.number().int().nullable(),
});
/** A backfill pass beside live polls (see {@link BackfillPassSchema}). */
export type BackfillPass = z.infer<typeof BackfillPassSchema>;

/**
 * The backfill a stream is doing or last did: a `pass` beside live polls, or, for a stream that
 * had not completed a first sync, `first-sync` (the state was reset and its first sync is the
 * backfill: progress is its watermark, figures its counters and `firstSync`).
 */
export const StreamBackfillSchema = z.discriminatedUnion('kind', [
  BackfillPassSchema,
  z.object({ kind: z.literal('first-sync'), jobId: z.string().min(1) }),
]);
/** The backfill a stream is doing or last did. */
export type StreamBackfill = z.infer<typeof StreamBackfillSchema>;
