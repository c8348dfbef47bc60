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
  /**
   * The enterprise whose AccessToken made the request (each has its own 200 / 30 s budget), so
   * a budget can be checked per token without recording the token; null for the Portfolio
   * Access Token, an unknown token or an injected 429 (a fault standing for an answer, which
   * spends the budget, names it too).
   */
  enterpriseId: z.string().nullable(),
});
export type RequestLogEntry = z.infer<typeof RequestLogEntrySchema>;

/**
 * Request-log entries kept (about 130 bytes each, some 40 MB in all): 12 h at the 200 requests
 * per 30 s of one AccessToken, 20 min of the 1,000-connection benchmark. Older ones are dropped.
 */
export const SIM_REQUEST_LOG_MAX_ENTRIES = 300_000;
