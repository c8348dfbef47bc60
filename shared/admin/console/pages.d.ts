/** Types of pages.js (a browser module of the console, also tested under Node). */

/**
 * Every page of a listing, following `nextCursor` to the last: the items under `key`, in order,
 * and each page's whole answer.
 */
export function readEveryPage(
  get: (path: string) => Promise<unknown>,
  path: string,
  key: string,
  search?: Record<string, string>,
): Promise<{ items: unknown[]; answers: Record<string, unknown>[] }>;
