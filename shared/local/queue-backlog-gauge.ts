import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { BacklogGauge } from '../polling/backlog-gauge.ts';

/**
 * The local run's undelivered backlog: messages of the dispatch queue that are visible or in
 * flight (envelopes not yet fanned out, deliveries due now). Delayed retries are left out: they
 * are pending deliveries kept in the store, and one dead endpoint must not stop detection for
 * every other subscriber. Bounding this count bounds what the in-process queue holds in memory;
 * the rest waits at the source, behind the poller's saved window and cursor.
 */
export class SqsBacklogGauge implements BacklogGauge {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
    private readonly bound: number,
  ) {}

  /** Messages visible or in flight now. */
  async depth(): Promise<number> {
    const { Attributes } = await this.client.send(
      new GetQueueAttributesCommand({
        QueueUrl: this.queueUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    return (
      Number(Attributes?.ApproximateNumberOfMessages ?? 0) +
      Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0)
    );
  }

  async aboveBound(): Promise<boolean> {
    return (await this.depth()) > this.bound;
  }
}
