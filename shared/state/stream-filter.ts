/** Which stream states a listing returns: all, or one connection's. */
export interface StreamFilter {
  connectionId?: string;
}

/** Options of {@link StateStore.listStreams}. */
export interface ListStreamsOptions {
  /** The most states to read (the first by stream id); every one when absent. */
  limit?: number;
  /**
   * Only states whose ids sort after this one (a page's last): the listing starts there
   * rather than reading the states before it again. With a filter, an id of its connection.
   */
  after?: string;
}

/** Whether a stream id belongs to the filter's connection (every id when it names none). */
export function streamMatches(streamId: string, filter: StreamFilter = {}): boolean {
  return filter.connectionId === undefined || streamId.startsWith(`${filter.connectionId}:`);
}
