import { EventBridgeClient, ListRulesCommand } from '@aws-sdk/client-eventbridge';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import type { FauxqsServer } from 'fauxqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { DynamoDbBulkLaneLedger } from '../../shared/publish/dynamodb-bulk-lane-ledger.ts';
import { PublishableEventSchema } from '../../shared/publish/publishable-event.ts';
import { createPublisher, parsePublisherConfig } from '../../shared/publish/publisher-config.ts';
import { processLaneBatch } from '../../shared/webhooks/bulk-lane-batch.ts';
import { changeEvent, createHarness, eventIdOf } from '../webhooks/support/harness.ts';
import { type LocalTable, startLocalTable } from '../webhooks/support/local-dynamodb.ts';
import { type LocalSqs, startLocalSqs } from '../webhooks/support/local-sqs.ts';

let local: LocalSqs;
let sqsServer: FauxqsServer;
let sqs: SQSClient;
let table: LocalTable;
const bus = mockClient(EventBridgeClient);

beforeAll(async () => {
  local = await startLocalSqs();
  sqsServer = local.server;
  sqs = local.client;
  table = await startLocalTable('bulk-lane-aws-test');
  // No rule on the bus: events go to the dispatch queues only.
  bus.on(ListRulesCommand).resolves({ Rules: [] });
});
afterAll(async () => {
  bus.restore();
  await local.stop();
  await table?.stop();
});

const receiveAll = (queueUrl: string) => local.receiveAll(queueUrl);

const idsOf = (messages: { body: string }[]) => messages.map((m) => JSON.parse(m.body).id);

describe('the bulk dispatch lane in AWS (poller publisher, dispatcher, the counts in the table)', () => {
  it('keeps a stream’s live events behind its bulk events until the dispatcher has handled them', async () => {
    const live = sqsServer.createQueue('dispatch').queueUrl;
    const bulk = sqsServer.createQueue('bulk-dispatch').queueUrl;
    const clock = new ManualClock(Date.now());
    const ledger = new DynamoDbBulkLaneLedger({
      client: table.client,
      tableName: table.tableName,
      clock,
    });
    const publisher = createPublisher(
      parsePublisherConfig({ DISPATCH_QUEUE_URL: live, BULK_DISPATCH_QUEUE_URL: bulk }),
      { sqsClient: sqs, eventBridgeClient: new EventBridgeClient({}), bulkLaneLedger: ledger },
    );
    const event = (n: number, connection = 'main') =>
      PublishableEventSchema.parse({
        ...changeEvent(eventIdOf(n)),
        source: `connector/${connection}`,
      });

    // A first sync that emits, then live changes of the same stream and of another one.
    await publisher.publish([event(1), event(2), event(3)], { lane: 'bulk' });
    await publisher.publish([event(4), event(5, 'hotel-7')]);
    expect(idsOf(await receiveAll(live))).toEqual([eventIdOf(5)]);
    const queued = await receiveAll(bulk);
    expect(idsOf(queued)).toEqual([1, 2, 3, 4].map(eventIdOf));

    // The dispatcher handles the bulk queue's batch (no subscriber: nothing to send).
    const harness = createHarness();
    const result = await processLaneBatch(queued, harness.deps, 'bulk', ledger);
    expect(result.batchItemFailures).toEqual([]);
    expect(await ledger.pending(['main:customer'])).toEqual(new Set());

    await publisher.publish([event(6)]);
    expect(idsOf(await receiveAll(live))).toEqual([eventIdOf(6)]);
    expect(await receiveAll(bulk)).toEqual([]);
  });
});
