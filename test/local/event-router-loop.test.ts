import { ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LocalEventRouter, ROUTED_EVENTS_AT_ONCE } from '../../shared/local/event-router.ts';
import { startEventSourceLoop } from '../../shared/local/event-source-loop.ts';
import { type SqsEmulator, startSqsEmulator } from '../../shared/local/sqs-emulator.ts';
import { EventBridgeEnvelopeSchema } from '../../shared/publish/event-bridge-envelope.ts';
import { dispatchEventPattern } from '../../shared/publish/routing-rule.ts';
import { makeEvent, makeEvents } from '../publish/fixtures.ts';

let sqs: SqsEmulator;

beforeAll(async () => {
  sqs = await startSqsEmulator();
});

afterAll(async () => {
  await sqs.close();
});

async function queueDepth(queueUrl: string): Promise<number> {
  const response = await sqs.client.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 0,
      VisibilityTimeout: 0,
    }),
  );
  return response.Messages?.length ?? 0;
}

function sequentialIds(): () => string {
  let next = 0;
  return () => `00000000-0000-4000-8000-${String(next++).padStart(12, '0')}`;
}

describe('LocalEventRouter with the event source loop', () => {
  it('delivers routed events to the handler as SQS records carrying the EventBridge envelope', async () => {
    const queueUrl = await sqs.createQueue('dispatch-envelope');
    const router = new LocalEventRouter({
      client: sqs.client,
      routes: [{ name: 'dispatch', pattern: dispatchEventPattern(), queueUrl }],
      newId: sequentialIds(),
    });
    const event = makeEvent(5, { enterpriseId: 'ent9' });
    const records: SQSRecord[] = [];
    const loop = startEventSourceLoop({
      client: sqs.client,
      queueUrl,
      waitTimeSeconds: 1,
      handler: async (batch: SQSEvent) => {
        records.push(...batch.Records);
        return { batchItemFailures: [] };
      },
    });

    expect(await router.publish([event])).toEqual({ published: 1, thinned: 0, failures: [] });
    await vi.waitFor(() => expect(records).toHaveLength(1), { timeout: 5_000 });
    await loop.stop();

    const [record] = records;
    expect(record).toMatchObject({
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:dispatch-envelope',
      awsRegion: 'us-east-1',
      attributes: { ApproximateReceiveCount: '1' },
    });
    const envelope = EventBridgeEnvelopeSchema.parse(JSON.parse(record?.body ?? ''));
    expect(envelope).toEqual({
      version: '0',
      id: '00000000-0000-4000-8000-000000000000',
      'detail-type': 'customer.updated',
      source: 'change-bridge',
      account: '000000000000',
      time: '2026-01-01T00:00:05Z',
      region: 'us-east-1',
      resources: ['change-bridge:enterprise/ent9', 'change-bridge:entity/customer/c5'],
      detail: event,
    });
    expect(await queueDepth(queueUrl)).toBe(0);
  });

  it('deletes what succeeded and redelivers a failed item after the visibility timeout', async () => {
    const queueUrl = await sqs.createQueue('dispatch-redeliver', { VisibilityTimeout: '1' });
    const router = new LocalEventRouter({
      client: sqs.client,
      routes: [{ name: 'dispatch', pattern: dispatchEventPattern(), queueUrl }],
    });
    const failing = makeEvent(1);
    const deliveries: Array<{ id: string; receiveCount: string }> = [];
    const loop = startEventSourceLoop({
      client: sqs.client,
      queueUrl,
      waitTimeSeconds: 1,
      handler: async (batch): Promise<SQSBatchResponse> => {
        const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
        for (const record of batch.Records) {
          const { detail } = EventBridgeEnvelopeSchema.parse(JSON.parse(record.body));
          deliveries.push({
            id: detail.id,
            receiveCount: record.attributes.ApproximateReceiveCount,
          });
          if (detail.id === failing.id && record.attributes.ApproximateReceiveCount === '1') {
            batchItemFailures.push({ itemIdentifier: record.messageId });
          }
        }
        return { batchItemFailures };
      },
    });

    await router.publish([makeEvent(0), failing, makeEvent(2)]);
    await vi.waitFor(() => expect(deliveries).toHaveLength(4), { timeout: 10_000, interval: 50 });
    await loop.stop();

    expect(deliveries.filter((delivery) => delivery.id === failing.id)).toEqual([
      { id: failing.id, receiveCount: '1' },
      { id: failing.id, receiveCount: '2' },
    ]);
    expect(
      deliveries
        .filter((delivery) => delivery.id !== failing.id)
        .map((delivery) => delivery.receiveCount),
    ).toEqual(['1', '1']);
    expect(await queueDepth(queueUrl)).toBe(0);
  });

  it('routes a long publish in parts, each queued before the next is made, in order and counted whole', async () => {
    const queueUrl = await sqs.createQueue('dispatch-parts');
    const steps: string[] = [];
    const newIds = sequentialIds();
    const client = {
      send: (...args: Parameters<SQSClient['send']>) => {
        steps.push('send');
        return sqs.client.send(...args);
      },
    } as unknown as SQSClient;
    const router = new LocalEventRouter({
      client,
      routes: [{ name: 'dispatch', pattern: dispatchEventPattern(), queueUrl }],
      newId: () => {
        steps.push('envelope');
        return newIds();
      },
    });
    const count = ROUTED_EVENTS_AT_ONCE * 2 + 50;
    const events = makeEvents(count);
    const tooLarge = ROUTED_EVENTS_AT_ONCE + 10;
    const thin = ROUTED_EVENTS_AT_ONCE * 2 + 5;
    events[tooLarge] = makeEvent(tooLarge, { currentPadding: 300_000 });
    events[thin] = makeEvent(thin, { previousPadding: 300_000 });

    const result = await router.publish(events);

    expect(result).toMatchObject({ published: count - 1, thinned: 1 });
    expect(result.failures).toMatchObject([
      { eventId: events[tooLarge]!.id, code: 'EventTooLarge', target: 'local-router' },
    ]);
    // Each part's envelopes are all made, then sent, before the next part's first envelope (the
    // event too large gets none).
    const envelopesBeforeEachSendRun: number[] = [];
    let envelopes = 0;
    for (const step of steps) {
      if (step === 'envelope') envelopes++;
      else if (envelopes > 0) {
        envelopesBeforeEachSendRun.push(envelopes);
        envelopes = 0;
      }
    }
    expect(envelopesBeforeEachSendRun).toEqual([
      ROUTED_EVENTS_AT_ONCE,
      ROUTED_EVENTS_AT_ONCE - 1,
      50,
    ]);
    const queued: string[] = [];
    for (;;) {
      const { Messages = [] } = await sqs.client.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 0,
        }),
      );
      if (Messages.length === 0) break;
      for (const message of Messages)
        queued.push(EventBridgeEnvelopeSchema.parse(JSON.parse(message.Body ?? '')).detail.id);
    }
    // Within a part its batches of ten go concurrently (a standard queue keeps no order); a
    // part's events are all queued before the next part's.
    const partOf = (id: string) =>
      Math.floor(events.findIndex((event) => event.id === id) / ROUTED_EVENTS_AT_ONCE);
    expect(queued.map(partOf)).toEqual(queued.map(partOf).toSorted((a, b) => a - b));
    expect(queued.toSorted()).toEqual(
      events.filter((_, index) => index !== tooLarge).map((event) => event.id),
    );
  });

  it('routes by pattern: each queue gets only the events its rule matches', async () => {
    const dispatchUrl = await sqs.createQueue('dispatch-routes');
    const resourcesUrl = await sqs.createQueue('resources-only');
    const router = new LocalEventRouter({
      client: sqs.client,
      routes: [
        { name: 'dispatch', pattern: dispatchEventPattern(), queueUrl: dispatchUrl },
        {
          name: 'resources',
          pattern: { detail: { data: { entityType: ['resource'] } } },
          queueUrl: resourcesUrl,
        },
      ],
    });

    await router.publish([makeEvent(0), makeEvent(1, { entityType: 'resource' }), makeEvent(2)]);

    expect(await queueDepth(dispatchUrl)).toBe(3);
    expect(await queueDepth(resourcesUrl)).toBe(1);
  });

  it('routes nothing to the dispatch queue from a foreign source', async () => {
    const queueUrl = await sqs.createQueue('dispatch-foreign');
    const router = new LocalEventRouter({
      client: sqs.client,
      source: 'someone.else',
      routes: [{ name: 'dispatch', pattern: dispatchEventPattern(), queueUrl }],
    });

    expect((await router.publish([makeEvent(0)])).published).toBe(1);
    expect(await queueDepth(queueUrl)).toBe(0);
  });

  it('redelivers the whole batch when the handler throws, and stop waits for the handler in flight', async () => {
    const queueUrl = await sqs.createQueue('dispatch-throw', { VisibilityTimeout: '1' });
    const router = new LocalEventRouter({
      client: sqs.client,
      routes: [{ name: 'dispatch', pattern: dispatchEventPattern(), queueUrl }],
    });
    const receiveCounts: string[] = [];
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const errors: unknown[] = [];
    const loop = startEventSourceLoop({
      client: sqs.client,
      queueUrl,
      waitTimeSeconds: 1,
      onError: (error) => errors.push(error),
      handler: async (batch) => {
        const count = batch.Records[0]?.attributes.ApproximateReceiveCount ?? '';
        receiveCounts.push(count);
        if (count === '1') throw new Error('handler crashed');
        await released;
        return undefined;
      },
    });

    await router.publish([makeEvent(0)]);
    await vi.waitFor(() => expect(receiveCounts).toEqual(['1', '2']), {
      timeout: 10_000,
      interval: 50,
    });
    let stopped = false;
    const stopping = loop.stop().then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    release();
    await stopping;

    expect(errors).toMatchObject([{ message: 'handler crashed' }]);
    expect(await queueDepth(queueUrl)).toBe(0);
  });
});
