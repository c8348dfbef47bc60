/** Types of streams-table.js (a browser module of the console, also tested under Node). */

/**
 * What the Last error column shows: the last poll's error, else the latest record the stream set
 * aside for breaking its schema; '' for none.
 */
export function streamLastError(stream: {
  lastError?: string | null;
  lastSetAside?: { error: string } | null;
}): string;

/** The streams table of `GET /streams`, of one connection when `connectionId` is given. */
export function streamsTable(listing: unknown, connectionId?: string): HTMLElement;
