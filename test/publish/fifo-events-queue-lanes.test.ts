import {
  SendMessageBatchCommand,
  type SendMessageBatchCommandInput,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { MemoryBulkLaneLedger } from '../../shared/publish/bulk-lane.ts';
import type { EventPublisher } from '../../shared/publish/publisher.ts';
import { createPublisher, parsePublisherConfig } from '../../shared/publish/publisher-config.ts';
import { makeEvent } from './fixtures.ts';

const sqs = mockClient(SQSClient);
// The mock patches the client class for the whole worker: undone when this file ends.
afterAll(() => sqs.restore());

const account = 'https://sqs.eu-west-1.amazonaws.com/123456789012';
const eventsQueue = `${account}/events.fifo`;
const liveQueue = `${account}/dispatch.fifo`;
const bulkQueue = `${account}/bulk-dispatch.fifo`;

/** One message as sent: its queue, group, deduplication id and the event id in its body. */
interface SentMessage {
  queue: string | undefined;
  group: string | undefined;
  dedup: string | undefined;
  eventId: string;
}

function sentTo(queue: string): SentMessage[] {
  return sqs
    .commandCalls(SendMessageBatchCommand)
    .map((call) => call.args[0].input)
    .filter((input) => input.QueueUrl === queue)
    .flatMap((input) =>
      (input.Entries ?? []).map((entry) => {
        const body = JSON.parse(entry.MessageBody ?? '{}') as { id: string };
        return {
          queue: input.QueueUrl,
          group: entry.MessageGroupId,
          dedup: entry.MessageDeduplicationId,
          eventId: body.id,
        };
      }),
    );
}

/**
 * The stack's poller publisher with `eventsQueueFifo`: the two FIFO dispatch lanes (live and
 * bulk) behind a LaneRoutingPublisher, beside the FIFO events queue users subscribe to.
 */
describe('the FIFO events queue beside the two dispatch lanes', () => {
  let clock: ManualClock;
  let ledger: MemoryBulkLaneLedger;
  let publisher: EventPublisher;

  beforeEach(() => {
    sqs.reset();
    sqs.on(SendMessageBatchCommand).callsFake((input: SendMessageBatchCommandInput) => ({
      Successful: (input.Entries ?? []).map((entry) => ({ Id: entry.Id })),
      Failed: [],
    }));
    clock = new ManualClock();
    ledger = new MemoryBulkLaneLedger(clock);
    const config = parsePublisherConfig({
      PUBLISH_TARGETS: 'sqs',
      PUBLISH_QUEUE_URL: eventsQueue,
      DISPATCH_QUEUE_URL: liveQueue,
      BULK_DISPATCH_QUEUE_URL: bulkQueue,
    });
    publisher = createPublisher(config, {
      sqsClient: new SQSClient({ region: 'eu-west-1' }),
      clock,
      bulkLaneLedger: ledger,
    });
  });
  afterEach(() => sqs.reset());

  it('sends an event to the one events queue under one deduplication id, whichever lane published it', async () => {
    // The same event published by bulk work, then again by a live poll (a repeated publish):
    // the lanes are the dispatcher's queues; the events queue is one queue, one dedup scope.
    const event = makeEvent(1);
    await publisher.publish([event], { lane: 'bulk' });
    await publisher.publish([event], { lane: 'live' });

    const expected = {
      queue: eventsQueue,
      group: 'customer:c1',
      dedup: event.id,
      eventId: event.id,
    };
    expect(sentTo(eventsQueue)).toEqual([expected, expected]);
  });

  it("keeps a subject's order in its message group: a backfill's created, then a live change", async () => {
    const created = makeEvent(1, { change: 'created' });
    const updated = { ...makeEvent(2, { entityId: 'c1' }), id: 'evt_live_change_of_c1' };
    await publisher.publish([created], { lane: 'bulk' });
    await publisher.publish([updated], { lane: 'live' });

    expect(sentTo(eventsQueue).map((message) => [message.group, message.eventId])).toEqual([
      ['customer:c1', created.id],
      ['customer:c1', updated.id],
    ]);
    // The dispatcher's copy of the live change follows the backfill's through the bulk queue.
    expect(sentTo(bulkQueue).map((message) => message.eventId)).toEqual([created.id, updated.id]);
    expect(sentTo(liveQueue)).toEqual([]);
  });

  it('sends a republished event to the other dispatch lane once the first copy was handled, but to the same events queue', async () => {
    // The two dispatch queues deduplicate apart: the dispatcher then receives a second copy
    // (its deliveries carry the event id as webhook-id), as for any publish repeated past SQS's
    // 5 minutes. The events queue still sees one id in one scope.
    const event = makeEvent(1);
    await publisher.publish([event], { lane: 'bulk' });
    await ledger.handled(new Map([['conn1:customer', 1]]));
    await publisher.publish([event], { lane: 'live' });

    expect(sentTo(bulkQueue).map((message) => message.dedup)).toEqual([event.id]);
    expect(sentTo(liveQueue).map((message) => message.dedup)).toEqual([event.id]);
    expect(sentTo(eventsQueue).map((message) => message.dedup)).toEqual([event.id, event.id]);
  });
});
