import { z } from 'zod';

/** The message the planner enqueues for one due stream. */
export const PollJobSchema = z.object({ streamId: z.string().min(1) });
export type PollJob = z.infer<typeof PollJobSchema>;
