import { z } from 'zod';
import { StreamBackfillSchema } from './stream-backfill-schema.ts';
import { StreamWindowSchema } from './stream-window-schema.ts';

/** Per-stream poll state: watermark, window in progress, schedule, health. */
export const StreamStateSchema = z.object({
  streamId: z.string().min(1),
  connectionId: z.string(),
  entityType: z.string(),
  /** ISO instant: windows start here (minus overlap); null before the first window. */
  watermark: z.string().nullable(),
  window: StreamWindowSchema.nullable(),
  /** Epoch ms. */
  lastPollAt: z.number().int().nullable(),
  /** Epoch ms. */
  lastSuccessAt: z.number().int().nullable(),
  /** Epoch ms. */
  nextDueAt: z.number().int(),
  consecutiveFailures: z.number().int(),
  lastError: z.string().nullable(),
  /**
   * An authorization error parks a stream: it makes no connector request while its connection
   * still authenticates with the credentials that were refused ({@link parkedCredential}), and
   * is polled again, from its kept watermark, once they changed (a fixed token, a restart with
   * other CONNECTOR_* values) or after a reset.
   */
  parked: z.boolean(),
  parkedReason: z.string().nullable(),
  /** The fingerprint of the credentials refused when the stream was parked (`ConnectorCaller.credential`). */
  parkedCredential: z.string().optional(),
  /** Epoch ms of the last reconciliation sweep. */
  lastSweepAt: z.number().int().nullable(),
  /**
   * The last entity id a sweep still in progress has checked: a sweep asks for the stored ids
   * in their sort order, 1,000 a request, and one cut short (a Lambda's deadline, a stop)
   * resumes after it. Null or absent when no sweep is in progress.
   */
  sweepPosition: z.string().nullable().optional(),
  /**
   * The last product a round of prices still in progress has priced: a round cut short by a
   * Lambda's deadline goes on after it (in the configured order) in the next poll, instead of
   * pricing every product again. Null or absent when no round is in progress.
   */
  pricePosition: z.string().nullable().optional(),
  /**
   * A deletion read (customers: a read on `DeletedUtc`) cut within one of its windows: that
   * window, fixed when its first page was asked, and the Cursor of the last page of it judged.
   * Kept after each page but the last, so a window of more pages than one run reads goes on from
   * there in the next instead of starting again from its newest page every run and never ending.
   * Null or absent when none is in progress.
   */
  deletionWindow: z
    .object({ startUtc: z.string(), endUtc: z.string(), cursor: z.string() })
    .nullable()
    .optional(),
  initialSyncDone: z.boolean(),
  /** Epoch ms when the first sync of an empty stream began (records older than it need no read). */
  initialSyncStartedAt: z.number().int().nullable().optional(),
  /**
   * Epoch ms of a reset (`streams reset`, a backfill of a stream whose first sync had not
   * completed) whose snapshots stored before it (their `updatedAt`) are not all deleted yet:
   * the request only writes this, and the stream's poller deletes them a bounded number per
   * poll before its first sync begins. Null or absent when none are left.
   */
  resetAt: z.number().int().nullable().optional(),
  /**
   * Epoch ms the stream was removed (its connection removed, or reset with its connection gone)
   * while its snapshots are deleted in the background (the AWS admin API): the state is a
   * tombstone (a fresh state with `resetAt` the same instant), hidden from listings and noted in
   * {@link StateStore.listRemovedStreams}; a purge step deletes the snapshots in bounded chunks,
   * then the state. A connection added again with the id takes its stream over at its first poll
   * (the poller clears this; `resetAt` has it delete the old snapshots before its first sync).
   * Null or absent on any other state.
   */
  removedAt: z.number().int().nullable().optional(),
  /** How this stream's first sync publishes, overriding the configured INITIAL_SYNC (a backfill sets it). */
  initialSync: z.enum(['baseline', 'emit']).optional(),
  /**
   * Records read from the connector since the state was created (a reset or a backfill starts
   * it again). Saved with the page cursor or the watermark that commits them, so a resumed
   * window counts each page once. Absent on states stored before it existed: 0.
   */
  recordsRead: z.number().int().nonnegative().optional(),
  /** Events published since the state was created, saved like {@link recordsRead}. */
  eventsPublished: z.number().int().nonnegative().optional(),
  /**
   * Readings of records set aside since the state was created, saved like {@link recordsRead}
   * (a record read again counts again): records that broke their schema, left out of their page
   * while its other records were published (no event for them until they change again). Absent:
   * none.
   */
  recordsSetAside: z.number().int().nonnegative().optional(),
  /**
   * The latest record set aside: the error naming its field and the record (its Id, or its
   * place in the page), and when (epoch ms). Kept until a reset: the change it carried was not
   * published, whatever later windows read. Absent: none.
   */
  lastSetAside: z.object({ error: z.string(), at: z.number().int() }).optional(),
  /**
   * The first sync's figures, kept by the save that completed it: when (epoch ms) and the
   * counters then, so a finished backfill reports what it did, not what the stream read since.
   * Absent until the first sync completes, and on states stored before it existed.
   */
  firstSync: z
    .object({
      doneAt: z.number().int(),
      recordsRead: z.number().int().nonnegative(),
      eventsPublished: z.number().int().nonnegative(),
    })
    .optional(),
  /** The backfill this stream is doing or last did; absent when none touched it. */
  backfill: StreamBackfillSchema.optional(),
  /** Optimistic concurrency: incremented by every successful save. */
  version: z.number().int().nonnegative(),
});
/** Per-stream poll state. */
export type StreamState = z.infer<typeof StreamStateSchema>;

/** Whether a stream state is a removal's tombstone (see StreamState.removedAt). Pure. */
export function isRemovedStream(state: Pick<StreamState, 'removedAt'>): boolean {
  return typeof state.removedAt === 'number';
}

/**
 * A note that a stream was removed in the background and awaits its purge
 * ({@link StateStore.markStreamRemoved}).
 */
export const RemovedStreamNoteSchema = z.object({
  streamId: z.string(),
  /**
   * The removal's instant (its tombstone's removedAt), so a purge drops only the note it read,
   * never the note of a later removal; absent on notes written before it was kept.
   */
  removedAt: z.number().int().optional(),
});
/** A removed stream's note. */
export type RemovedStreamNote = z.infer<typeof RemovedStreamNoteSchema>;
