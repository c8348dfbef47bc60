/** Types of streams-table.js (a browser module of the console, also tested under Node). */

/**
 * What the Last error column shows: the last poll's error, else the latest record the stream set
 * aside for breaking its schema; '' for none.
 */
export function streamLastError(stream: {
  lastError?: string | null;
  lastSetAside?: { error: string } | null;
}): string;

/**
 * The streams table of `GET /streams`, of one connection when `connectionId` is given; over
 * {@link STREAMS_SHOWN_MAX} streams, with a line before it saying how many it leaves out.
 */
export function streamsTable(listing: unknown, connectionId?: string): HTMLElement;

/** The most streams the table shows at once. */
export const STREAMS_SHOWN_MAX: number;

/**
 * The streams the table shows: at most `max` (default {@link STREAMS_SHOWN_MAX}), parked ones
 * first, then failing ones, then those with a last error, then the rest, each in order.
 */
export function streamsToShow<T extends object>(streams: T[], max?: number): T[];

/** What the State column says of a stream, and its badge's colour. */
export function streamState(stream: {
  configured?: boolean;
  parked?: boolean;
  parkedReason?: string | null;
  consecutiveFailures?: number;
  initialSyncDone?: boolean;
}): { text: string; kind: 'ok' | 'warn' | 'bad' | 'muted' };
