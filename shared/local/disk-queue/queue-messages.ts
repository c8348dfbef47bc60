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

/** Counts as SQS reports them. */
export interface QueueCounts {
  visible: number;
  inFlight: number;
  delayed: number;
}
