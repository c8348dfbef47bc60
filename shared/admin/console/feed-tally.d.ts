/** Types of feed-tally.js (a browser module of the console, also tested under Node). */

/** The live feed's count of events per minute and type. */
export interface FeedTally {
  /** Counts per minute (epoch ms of its start) and type. */
  perMinute: Map<number, Map<string, number>>;
  /** Counts an answer's events not counted yet; `full` when the answer left older ones out. */
  add(events: { id: string; type: string; storedAt: string }[], full: boolean, nowMs: number): void;
  /** The minute from which the counts are whole, when some answer left events out. */
  completeFrom(): number | undefined;
}

/** A new tally keeping `minutes` minutes, remembering ids seen within `overlapMs`. */
export function createFeedTally(options?: { minutes?: number; overlapMs?: number }): FeedTally;

/**
 * Events per minute by type over the last `minutes` minutes, from counts per minute and type;
 * the busiest types get their own series, the rest share `other`.
 */
export function eventsPerMinute(
  perMinute: Map<number, Map<string, number>>,
  nowMs: number,
  minutes?: number,
): {
  buckets: { label: string; values: Record<string, number> }[];
  series: string[];
  total: number;
};
