import { EventBridgeClient, ListRulesCommand } from '@aws-sdk/client-eventbridge';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import type { FauxqsServer } from 'fauxqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { ASKED_LIVE_MEMBER } from '../../shared/publish/dispatch-queue.ts';
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

/** Two dispatch queues named with `suffix`, the ledger in the table, the poller's publisher. */
function lanes(suffix: string) {
  const live = sqsServer.createQueue(`dispatch${suffix}`).queueUrl;
  const bulk = sqsServer.createQueue(`bulk-dispatch${suffix}`).queueUrl;
  const ledger = new DynamoDbBulkLaneLedger({
    client: table.client,
    tableName: table.tableName,
    clock: new ManualClock(Date.now()),
  });
  const publisher = createPublisher(
    parsePublisherConfig({ DISPATCH_QUEUE_URL: live, BULK_DISPATCH_QUEUE_URL: bulk }),
    { sqsClient: sqs, eventBridgeClient: new EventBridgeClient({}), bulkLaneLedger: ledger },
  );
  return { live, bulk, ledger, publisher };
}

/** Event `n` about customer `subject` of `connection`. */
const eventOf = (n: number, subject: string, connection: string) =>
  PublishableEventSchema.parse({
    ...changeEvent(eventIdOf(n), { subject }),
    source: `connector/${connection}`,
  });

describe('the bulk dispatch lane in AWS (poller publisher, dispatcher, the counts in the table)', () => {
  it('keeps a stream’s live events behind its bulk events until the dispatcher has handled them', async () => {
    const { live, bulk, ledger, publisher } = lanes('');
    const event = (n: number, subject: string, connection = 'main') =>
      eventOf(n, subject, connection);

    // A first sync that emits, then live changes: of a customer whose bulk event is on its way,
    // of one the sync did not emit, and of another stream.
    await publisher.publish([event(1, 'c-1'), event(2, 'c-2'), event(3, 'c-3')], { lane: 'bulk' });
    await publisher.publish([event(4, 'c-2'), event(5, 'c-9'), event(6, 'c-2', 'hotel-7')]);
    expect(idsOf(await receiveAll(live))).toEqual([5, 6].map(eventIdOf));
    const queued = await receiveAll(bulk);
    expect(idsOf(queued)).toEqual([1, 2, 3, 4].map(eventIdOf));

    // The dispatcher handles the bulk queue's batch (no subscriber: nothing to send).
    const harness = createHarness();
    const result = await processLaneBatch(queued, harness.deps, 'bulk', ledger);
    expect(result.batchItemFailures).toEqual([]);
    expect(await ledger.pending(['main:customer'])).toEqual(new Set());

    await publisher.publish([event(7, 'c-2')]);
    expect(idsOf(await receiveAll(live))).toEqual([eventIdOf(7)]);
    expect(await receiveAll(bulk)).toEqual([]);
  });

  it('lets a subject’s live events go live once the dispatcher has handled its bulk event, while the stream’s others are on their way', async () => {
    const { live, bulk, ledger, publisher } = lanes('-2');
    const event = (n: number, subject: string) => eventOf(n, subject, 'second');
    await publisher.publish([event(11, 'c-1'), event(12, 'c-2')], { lane: 'bulk' });
    const [first, second] = await receiveAll(bulk);
    if (!first || !second) throw new Error('two bulk events expected');
    await processLaneBatch([first], createHarness().deps, 'bulk', ledger);
    expect(await ledger.pending(['second:customer'])).toEqual(new Set(['second:customer']));

    await publisher.publish([event(13, 'c-1'), event(14, 'c-2')]);
    expect(idsOf(await receiveAll(live))).toEqual([eventIdOf(13)]);
    expect(idsOf(await receiveAll(bulk))).toEqual([eventIdOf(14)]);
  });

  it('marks a live change the bulk lane carries for its subject’s order, and the dispatcher runs it as live work there', async () => {
    const { bulk, ledger, publisher } = lanes('-asked');
    const event = (n: number, subject: string) => eventOf(n, subject, 'third');
    await publisher.publish([event(21, 'c-1')], { lane: 'bulk' });
    await publisher.publish([event(22, 'c-1')]);
    const queued = await receiveAll(bulk);
    // First in the envelope, the event itself unchanged; a bulk event has no mark.
    expect(queued.map((m) => m.body.startsWith(`{"${ASKED_LIVE_MEMBER}":true,`))).toEqual([
      false,
      true,
    ]);
    expect(idsOf(queued)).toEqual([eventIdOf(21), eventIdOf(22)]);
    expect(JSON.parse(queued[1]!.body).detail).toEqual(event(22, 'c-1'));
    // Its endpoint fails both: the bulk event waits for its retry as bulk work, the live change
    // behind it as live work (no lane in its message: the dispatch queue, not the bulk one),
    // and sends the bulk event ahead of the bulk lane for it.
    const clock = new ManualClock(Date.now());
    const harness = createHarness({ clock });
    await harness.service.createSubscription({ url: 'https://hooks.example.com/in' });
    harness.deps.sender = {
      send: async () => ({ kind: 'response', status: 500, headers: {}, body: '', latencyMs: 1 }),
    };
    expect(await processLaneBatch(queued, harness.deps, 'bulk', ledger)).toEqual({
      batchItemFailures: [],
    });
    await clock.advance(3_600_000);
    const waiting = await Promise.all(
      harness.queue.receive(10).map(async ({ body }) => {
        const message = JSON.parse(body);
        const delivery = await harness.deps.store.getDelivery(message.deliveryId);
        return [delivery?.eventId, message.lane, message.ahead ?? false];
      }),
    );
    expect(waiting.sort()).toEqual([
      [eventIdOf(21), 'bulk', false],
      [eventIdOf(21), 'live', true],
      [eventIdOf(22), undefined, false],
    ]);
  });
});
