import { z } from 'zod';

/** A window being paged through; kept after each page so a cut-off poller resumes at the next page. */
export const StreamWindowSchema = z.object({
  startUtc: z.string(),
  endUtc: z.string(),
  cursor: z.string().nullable(),
  count: z.number().int(),
  pages: z.number().int(),
});
/** A window being paged through. */
export type StreamWindow = z.infer<typeof StreamWindowSchema>;
