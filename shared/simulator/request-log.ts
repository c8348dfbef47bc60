import { z } from 'zod';

/** One answered `/api/` request; tokens are never recorded. */
export const RequestLogEntrySchema = z.object({
  time: z.iso.datetime(),
  operation: z.string(),
  status: z.number().int(),
  /** Length of the response's primary array (the page), null when there is none. */
  items: z.number().int().nullable(),
  /** `Limitation.Count` of the request, null for operations without one. */
  count: z.number().int().nullable(),
  /** Injected fault, if any. */
  fault: z.string().nullable(),
});
export type RequestLogEntry = z.infer<typeof RequestLogEntrySchema>;
