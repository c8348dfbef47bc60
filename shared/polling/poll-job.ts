import { z } from 'zod';

/**
 * The message the planner enqueues: one connection's due streams, polled by one invocation
 * with one client and one budget. `{ streamId }` is the older one-stream form, still
 * accepted so jobs queued before an upgrade are not lost. `{ purge }` is the planner's job for
 * the background removal of streams (purge-job.ts), on the same queue and pollers.
 */
export const PollJobSchema = z.union([
  z.object({
    connectionId: z.string().min(1),
    /** The connection's streams; the poller polls those due by `dueBy`. */
    streamIds: z.array(z.string().min(1)).min(1),
    /** Epoch ms: streams due later are left for the next job (absent: poll every listed one). */
    dueBy: z.number().int().optional(),
  }),
  z.object({ streamId: z.string().min(1) }),
  /** Not a poll: the purge of streams removed in the background (see runPurgeJob). */
  z.object({ purge: z.literal('removed-streams') }),
]);
/** A poll job. */
export type PollJob = z.infer<typeof PollJobSchema>;
