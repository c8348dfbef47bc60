/** Intervals from which streams are spread over the interval instead of all falling due together. */
export const STAGGER_FROM_INTERVAL_MS = 30_000;

/**
 * The offset of stream `index` of `count` within its interval: evenly spaced, so the streams
 * of a connection do not all spend the connector budget (200 requests per 30 s) in one
 * instant. Intervals under 30 s poll nearly continuously and are not spread (0).
 * @example streamPhaseMs(1, 4, 60_000) === 15_000
 */
export function streamPhaseMs(index: number, count: number, intervalMs: number): number {
  if (intervalMs < STAGGER_FROM_INTERVAL_MS || count <= 0) return 0;
  return Math.floor((index * intervalMs) / count);
}
