/** Types of health-pages.js (a browser module of the console, also tested under Node). */

/** How often the subscriptions page reads the health again when it takes more than one answer. */
export const PAGED_HEALTH_POLL_MS: number;

/** A subscription's health as `GET /subscriptions/health` shows it (the field read by name, and the rest). */
export type ListedHealth = Record<string, unknown> & { subscriptionId: string };

/**
 * Every subscription's health, following `nextCursor` to the last page, oldest subscription
 * first; how many pages it took.
 */
export function readEveryHealth(
  get: (path: string) => Promise<unknown>,
): Promise<{ health: ListedHealth[]; pages: number }>;

/** Whether the subscriptions page reads the health at this refresh (see health-pages.js). */
export function healthReadDue(
  last: { pages: number; readAtMs: number } | undefined,
  nowMs: number,
): boolean;
