/** Types of connection-streams.js (a browser module of the console, also tested under Node). */

/**
 * A line per connection saying how many streams it has and how many stand where
 * (`3 streams: 2 ok, 1 parked`), by connection id.
 */
export function streamsSummaries(
  streams: {
    connectionId: string;
    configured?: boolean;
    parked?: boolean;
    consecutiveFailures?: number;
    initialSyncDone?: boolean;
  }[],
): Map<string, string>;
