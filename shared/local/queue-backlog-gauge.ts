import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { BacklogGauge } from '../polling/backlog-gauge.ts';
import { DELAYED_IN_LINE_ATTRIBUTE } from './disk-queue/sqs-json-server.ts';

/** Messages of a queue visible or in flight now (delayed ones left out). */
export async function queueDepth(client: SQSClient, queueUrl: string): Promise<number> {
  const { Attributes } = await client.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return (
    Number(Attributes?.ApproximateNumberOfMessages ?? 0) +
    Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0)
  );
}

/**
 * Messages of a local disk queue that are undelivered backlog: visible, in flight, or delayed
 * while waiting for their turn in a slow endpoint's line (delayed retries left out).
 */
export async function undeliveredDepth(client: SQSClient, queueUrl: string): Promise<number> {
  const { Attributes } = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['All'] }),
  );
  // The disk queue's own attribute, outside the SDK's names of SQS's.
  const counts: Record<string, string | undefined> = Attributes ?? {};
  return (
    Number(counts.ApproximateNumberOfMessages ?? 0) +
    Number(counts.ApproximateNumberOfMessagesNotVisible ?? 0) +
    Number(counts[DELAYED_IN_LINE_ATTRIBUTE] ?? 0)
  );
}

/**
 * The local run's undelivered backlog: messages of the dispatch queues (every lane) that are
 * visible or in flight (envelopes not yet fanned out, deliveries due now), and deliveries
 * deferred for their turn in a slow endpoint's line (they would otherwise wait in it, holding
 * batches). Delayed retries are left out: they are pending deliveries kept in the store, and
 * one dead endpoint must not stop detection for every other subscriber. Bounding this count bounds how far detection runs
 * ahead of delivery; the rest waits at the source, behind the poller's saved window and cursor.
 */
export class SqsBacklogGauge implements BacklogGauge {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrls: readonly string[],
    private readonly bound: number,
  ) {}

  /** Undelivered messages now, over the queues (see {@link undeliveredDepth}). */
  async depth(): Promise<number> {
    const depths = await Promise.all(
      this.queueUrls.map((url) => undeliveredDepth(this.client, url)),
    );
    return depths.reduce((sum, depth) => sum + depth, 0);
  }

  async aboveBound(): Promise<boolean> {
    return (await this.depth()) > this.bound;
  }
}
