/** A message as the queue hands it out. */
export interface StoredMessage {
  id: string;
  body: string;
  md5: string;
  sentAt: number;
  receiveCount: number;
  firstReceiveAt: number;
}

/** A received message and the handle that deletes it. */
export interface ReceivedMessage extends StoredMessage {
  receiptHandle: string;
}

/** Counts as SQS reports them, and one of this queue's own. */
export interface QueueCounts {
  visible: number;
  inFlight: number;
  delayed: number;
  /**
   * Of the delayed ones, those sent as waiting for their turn in a slow endpoint's line (with
   * the WAITS_IN_LINE_ATTRIBUTE): undelivered backlog, unlike delayed retries.
   */
  delayedInLine: number;
}
