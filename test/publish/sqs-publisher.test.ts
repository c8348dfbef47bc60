import {
  DeleteMessageBatchCommand,
  KmsThrottled,
  type Message,
  ReceiveMessageCommand,
  RequestThrottled,
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { type SqsEmulator, startSqsEmulator } from '../../shared/local/sqs-emulator.ts';
import { createDispatchQueuePublisher } from '../../shared/publish/dispatch-queue.ts';
import { MemoryPublishMetrics } from '../../shared/publish/publish-metrics.ts';
import { PublishableEventSchema } from '../../shared/publish/publishable-event.ts';
import { SqsPublisher } from '../../shared/publish/sqs-publisher.ts';
import { driveClock } from './clock-driver.ts';
import { makeEvent, makeEvents } from './fixtures.ts';

/** Receives until `count` messages arrived, deleting each batch (FIFO hides a group while in flight). */
async function receiveAll(sqs: SqsEmulator, queueUrl: string, count: number): Promise<Message[]> {
  const received: Message[] = [];
  for (let round = 0; received.length < count && round < 100; round++) {
    const response = await sqs.client.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 1,
        MessageAttributeNames: ['All'],
        MessageSystemAttributeNames: ['All'],
      }),
    );
    const messages = response.Messages ?? [];
    received.push(...messages);
    if (messages.length > 0) {
      await sqs.client.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: messages.map((message, index) => ({
            Id: String(index),
            ReceiptHandle: message.ReceiptHandle,
          })),
        }),
      );
    }
  }
  return received;
}

/** Asks for more messages once and returns how many came (0 when the queue is drained). */
async function countRemaining(sqs: SqsEmulator, queueUrl: string): Promise<number> {
  const response = await sqs.client.send(
    new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
  );
  return response.Messages?.length ?? 0;
}

describe('SqsPublisher against the SQS emulator', () => {
  let sqs: SqsEmulator;

  beforeAll(async () => {
    sqs = await startSqsEmulator();
  });

  afterAll(async () => {
    await sqs.close();
  });

  it('keeps order per entity for 100 interleaved events of 10 entities on a FIFO queue', async () => {
    const queueUrl = await sqs.createQueue('order-test.fifo');
    const metrics = new MemoryPublishMetrics();
    const publisher = new SqsPublisher({ client: sqs.client, queueUrl, metrics });
    // Event i belongs to entity i % 10: every entity's 10 events are spread over the stream.
    const events = Array.from({ length: 100 }, (_, index) =>
      makeEvent(index, { entityId: `e${index % 10}` }),
    );

    const result = await publisher.publish(events);
    expect(result).toEqual({ published: 100, thinned: 0, failures: [] });

    const received = await receiveAll(sqs, queueUrl, 100);
    expect(received).toHaveLength(100);
    const perEntity = new Map<string, string[]>();
    for (const message of received) {
      const group = message.Attributes?.MessageGroupId ?? '';
      const event = PublishableEventSchema.parse(JSON.parse(message.Body ?? ''));
      expect(group).toBe(`customer:${event.data.entityId}`);
      perEntity.set(group, [...(perEntity.get(group) ?? []), event.id]);
    }
    expect(perEntity.size).toBe(10);
    for (let entity = 0; entity < 10; entity++) {
      const expectedIds = events
        .filter((_, index) => index % 10 === entity)
        .map((event) => event.id);
      expect(perEntity.get(`customer:e${entity}`)).toEqual(expectedIds);
    }
    expect(metrics.batchSizes('sqs')).toEqual(Array(10).fill(10));
  });

  it('delivers an event published twice to a FIFO queue once, deduplicated by event id', async () => {
    const queueUrl = await sqs.createQueue('dedupe-test.fifo');
    const publisher = new SqsPublisher({ client: sqs.client, queueUrl });
    const event = makeEvent(1);

    await publisher.publish([event]);
    await publisher.publish([event]);

    const received = await receiveAll(sqs, queueUrl, 1);
    expect(received).toHaveLength(1);
    expect(received[0]?.Attributes?.MessageDeduplicationId).toBe(event.id);
    expect(await countRemaining(sqs, queueUrl)).toBe(0);
  });

  it('sends the event as body with eventType, entityType and entityId attributes', async () => {
    const queueUrl = await sqs.createQueue('attributes-test');
    const publisher = new SqsPublisher({ client: sqs.client, queueUrl });
    const event = makeEvent(3, { entityType: 'resource', entityId: 'r-9', change: 'deleted' });

    await publisher.publish([event]);

    const [message] = await receiveAll(sqs, queueUrl, 1);
    expect(JSON.parse(message?.Body ?? '')).toEqual(event);
    expect(message?.MessageAttributes).toEqual({
      eventType: { DataType: 'String', StringValue: 'resource.deleted' },
      entityType: { DataType: 'String', StringValue: 'resource' },
      entityId: { DataType: 'String', StringValue: 'r-9' },
    });
    expect(message?.Attributes?.MessageGroupId).toBeUndefined();
  });

  it('publishes an event over 256 KiB thin and batches by bytes', async () => {
    const queueUrl = await sqs.createQueue('size-test');
    const metrics = new MemoryPublishMetrics();
    const publisher = new SqsPublisher({ client: sqs.client, queueUrl, metrics });
    const events = [
      makeEvent(0, { previousPadding: 300_000 }),
      ...makeEvents(3, { previousPadding: 100_000 }).map((event, index) => ({
        ...event,
        id: `evt_big${index}`,
      })),
    ];

    const result = await publisher.publish(events);

    expect(result).toEqual({ published: 4, thinned: 1, failures: [] });
    // The thin event is small; the three 100 KB events fit two to a 256 KiB batch.
    expect(metrics.batchSizes('sqs')).toEqual([3, 1]);
    const received = await receiveAll(sqs, queueUrl, 4);
    const thin = received
      .map((message) => JSON.parse(message.Body ?? ''))
      .find((body) => body.id === events[0]?.id);
    expect(thin.data.truncated).toBe(true);
    expect(thin.data.previous).toBeUndefined();
    expect(thin.data.patch).toBeUndefined();
  });

  it('sends a record holding characters SQS refuses raw (U+FFFE, U+FFFF) as JSON escapes', async () => {
    // SQS takes #x9 | #xA | #xD | #x20-#xD7FF | #xE000-#xFFFD | #x10000-#x10FFFF in a body;
    // JSON.stringify leaves U+FFFE and U+FFFF raw, and SQS refuses such a message for good.
    const queueUrl = await sqs.createQueue('characters-test');
    const dispatchUrl = await sqs.createQueue('characters-dispatch-test');
    const event = makeEvent(4);
    const current = { ...(event.data.current as object), Notes: 'a\uFFFEb\uFFFFc' };
    const odd = { ...event, data: { ...event.data, current } };

    const results = await Promise.all([
      new SqsPublisher({ client: sqs.client, queueUrl }).publish([odd]),
      createDispatchQueuePublisher({ client: sqs.client, queueUrl: dispatchUrl }).publish([odd]),
    ]);

    for (const result of results)
      expect(result).toEqual({ published: 1, thinned: 0, failures: [] });
    const [message] = await receiveAll(sqs, queueUrl, 1);
    expect(JSON.parse(message?.Body ?? '')).toEqual(odd);
    const [dispatched] = await receiveAll(sqs, dispatchUrl, 1);
    expect(JSON.parse(dispatched?.Body ?? '').detail).toEqual(odd);
  });
});

describe('SqsPublisher partial failures', () => {
  // Mocks one client instance only, so the emulator tests above keep the real SDK.
  const client = new SQSClient({ region: 'us-east-1' });
  const sqsMock = mockClient(client);
  const queueUrl = 'https://sqs.us-east-1.amazonaws.com/123456789012/changes.fifo';

  it('retries only the failed entry, before the next event of the same entity is sent', async () => {
    sqsMock.reset();
    sqsMock
      .on(SendMessageBatchCommand)
      .resolvesOnce({
        Successful: [{ Id: '1', MessageId: 'm1', MD5OfMessageBody: '', SequenceNumber: '1' }],
        Failed: [{ Id: '0', SenderFault: false, Code: 'InternalError', Message: 'retry me' }],
      })
      .resolves({ Successful: [], Failed: [] });
    const clock = new ManualClock();
    const publisher = new SqsPublisher({ client, queueUrl, clock, random: () => 0 });
    // a0, b0, a1: a1 must not go out before a0 is accepted.
    const a0 = makeEvent(0, { entityId: 'a' });
    const b0 = makeEvent(1, { entityId: 'b' });
    const a1 = makeEvent(2, { entityId: 'a' });

    const result = await driveClock(clock, publisher.publish([a0, b0, a1]));

    const sent = sqsMock
      .commandCalls(SendMessageBatchCommand)
      .map((call) =>
        (call.args[0].input.Entries ?? []).map((entry) => [
          entry.Id,
          entry.MessageGroupId,
          entry.MessageDeduplicationId,
        ]),
      );
    expect(sent).toEqual([
      [
        ['0', 'customer:a', a0.id],
        ['1', 'customer:b', b0.id],
      ],
      [['0', 'customer:a', a0.id]],
      [['0', 'customer:a', a1.id]],
    ]);
    expect(result).toEqual({ published: 3, thinned: 0, failures: [] });
  });

  it.each(['KMS.ThrottlingException', 'RequestThrottled', 'ThrottlingException'])(
    'retries an entry refused with %s even though SQS marks it a sender fault',
    async (code) => {
      sqsMock.reset();
      sqsMock
        .on(SendMessageBatchCommand)
        .resolvesOnce({
          Successful: [],
          Failed: [{ Id: '0', SenderFault: true, Code: code, Message: 'slow down' }],
        })
        .resolves({ Successful: [], Failed: [] });
      const clock = new ManualClock();
      const publisher = createDispatchQueuePublisher({
        client,
        queueUrl: 'https://q/1/standard',
        clock,
        random: () => 0,
      });

      const result = await driveClock(clock, publisher.publish([makeEvent(0)]));

      expect(sqsMock.commandCalls(SendMessageBatchCommand)).toHaveLength(2);
      expect(result).toEqual({ published: 1, thinned: 0, failures: [] });
    },
  );

  it.each([
    ['KmsThrottled', () => new KmsThrottled({ message: 'KMS throttled', $metadata: {} })],
    ['RequestThrottled', () => new RequestThrottled({ message: 'slow down', $metadata: {} })],
  ])(
    'sends the whole batch again after a backoff when SendMessageBatch itself is refused with %s',
    async (_, throttled) => {
      sqsMock.reset();
      sqsMock
        .on(SendMessageBatchCommand)
        .rejectsOnce(throttled())
        .resolves({ Successful: [], Failed: [] });
      const clock = new ManualClock();
      const publisher = createDispatchQueuePublisher({
        client,
        queueUrl: 'https://q/1/standard',
        clock,
        random: () => 0,
      });
      const events = makeEvents(2);

      const result = await driveClock(clock, publisher.publish(events));

      const sentIds = sqsMock
        .commandCalls(SendMessageBatchCommand)
        .map((call) =>
          (call.args[0].input.Entries ?? []).map((entry) => JSON.parse(entry.MessageBody ?? '').id),
        );
      const ids = events.map((event) => event.id);
      expect(sentIds).toEqual([ids, ids]);
      expect(result).toEqual({ published: 2, thinned: 0, failures: [] });
    },
  );

  it('reports a sender fault as a failure without retrying it', async () => {
    sqsMock.reset();
    sqsMock.on(SendMessageBatchCommand).resolves({
      Successful: [],
      Failed: [{ Id: '0', SenderFault: true, Code: 'InvalidParameterValue', Message: 'bad' }],
    });
    const publisher = new SqsPublisher({ client, queueUrl: 'https://q/1/standard' });

    const result = await publisher.publish([makeEvent(0)]);

    expect(sqsMock.commandCalls(SendMessageBatchCommand)).toHaveLength(1);
    expect(result.published).toBe(0);
    expect(result.failures).toMatchObject([{ code: 'InvalidParameterValue', target: 'sqs' }]);
  });
});

describe('SqsPublisher message attributes and FIFO ids as SQS takes them', () => {
  const client = new SQSClient({ region: 'us-east-1' });
  const sqsMock = mockClient(client);
  afterAll(() => sqsMock.restore());
  // What SQS takes in a body and in a String attribute value (SendMessage, MessageAttributeValue).
  const SQS_TEXT = /^[\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]*$/u;

  const sentEntries = () =>
    sqsMock
      .commandCalls(SendMessageBatchCommand)
      .flatMap((call) => call.args[0].input.Entries ?? []);

  it('sends an entity id with a control character, U+FFFE, U+FFFF or a lone surrogate as attribute text SQS takes', async () => {
    sqsMock.reset();
    sqsMock.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    const entityId = 'c\u0001\uFFFE\uFFFF\uD800x\u{1F600}';
    const event = makeEvent(5, { entityId });

    const result = await new SqsPublisher({ client, queueUrl: 'https://q/1/events' }).publish([
      event,
    ]);

    expect(result).toEqual({ published: 1, thinned: 0, failures: [] });
    const [entry] = sentEntries();
    for (const value of Object.values(entry?.MessageAttributes ?? {}))
      expect(value.StringValue).toMatch(SQS_TEXT);
    expect(entry?.MessageAttributes?.entityId?.StringValue).toBe(
      'c\uFFFD\uFFFD\uFFFD\uFFFDx\u{1F600}',
    );
    // The body keeps the exact id.
    expect(JSON.parse(entry?.MessageBody ?? '').data.entityId).toBe(entityId);
  });

  // What SQS takes as a MessageGroupId or MessageDeduplicationId.
  const FIFO_ID = /^[!-~]{1,128}$/;

  it.each([
    ['a space', 'Standard rate'],
    ['a non-ASCII character', 'ÖSTERREICH-2020'],
    ['more than 128 characters', 'x'.repeat(200)],
    ['U+FFFF', 'c\uFFFF'],
  ])(
    'groups the FIFO messages of an entity whose id holds %s by an id SQS takes, the same for each of its events',
    async (_, entityId) => {
      sqsMock.reset();
      sqsMock.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
      const fifoUrl = 'https://q/1/events.fifo';
      const dispatchUrl = 'https://q/1/dispatch.fifo';
      const first = makeEvent(6, { entityType: 'taxEnvironment', entityId });
      const second = makeEvent(7, { entityType: 'taxEnvironment', entityId });
      const other = makeEvent(8, { entityType: 'taxEnvironment', entityId: `${entityId}2` });

      await new SqsPublisher({ client, queueUrl: fifoUrl }).publish([first, second, other]);
      await createDispatchQueuePublisher({ client, queueUrl: dispatchUrl }).publish([first]);

      const entries = sentEntries();
      expect(entries).toHaveLength(4);
      for (const entry of entries) {
        expect(entry.MessageGroupId).toMatch(FIFO_ID);
        expect(entry.MessageDeduplicationId).toMatch(FIFO_ID);
      }
      // The events queue's three (first and other in one request, second after first), then the
      // dispatch queue's first.
      const group = (index: number) => entries[index]?.MessageGroupId;
      expect(entries.map((entry) => JSON.parse(entry.MessageBody ?? '').id)).toEqual([
        first.id,
        other.id,
        second.id,
        first.id,
      ]);
      expect(new Set([group(0), group(2), group(3)]).size).toBe(1);
      expect(group(1)).not.toBe(group(0));
    },
  );

  /** A message's size as SQS counts it: the body and each attribute's name, type and value. */
  function messageBytes(entry: SendMessageBatchRequestEntry): number {
    const bytes = (value: string | undefined) => Buffer.byteLength(value ?? '', 'utf8');
    return Object.entries(entry.MessageAttributes ?? {}).reduce(
      (sum, [name, value]) => sum + bytes(name) + bytes(value.DataType) + bytes(value.StringValue),
      bytes(entry.MessageBody),
    );
  }

  /** Event `index` padded so that its message body is `bytes` long. */
  function eventOfBodySize(index: number, bytes: number) {
    const unpadded = Buffer.byteLength(JSON.stringify(makeEvent(index)), 'utf8');
    return makeEvent(index, { previousPadding: bytes - unpadded });
  }

  it('counts the message attributes in the 256 KiB of a message and of a batch', async () => {
    sqsMock.reset();
    sqsMock.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    // A body just under the limit, which its attributes take over it.
    const nearlyFull = eventOfBodySize(0, 256 * 1024 - 10);
    // Two bodies of exactly half the limit: together within it, but not with their attributes.
    const halves = [eventOfBodySize(1, 128 * 1024), eventOfBodySize(2, 128 * 1024)];

    const result = await new SqsPublisher({ client, queueUrl: 'https://q/1/events' }).publish([
      nearlyFull,
      ...halves,
    ]);

    expect(result).toEqual({ published: 3, thinned: 1, failures: [] });
    const batches = sqsMock
      .commandCalls(SendMessageBatchCommand)
      .map((call) => call.args[0].input.Entries ?? []);
    const bodies = batches.map((entries) =>
      entries.map((entry) => JSON.parse(entry.MessageBody ?? '')),
    );
    expect(bodies.map((batch) => batch.map((body) => body.id))).toEqual([
      [nearlyFull.id, halves[0]!.id],
      [halves[1]!.id],
    ]);
    expect(bodies[0]?.[0].data.truncated).toBe(true);
    for (const entries of batches) {
      const total = entries.reduce((sum, entry) => sum + messageBytes(entry), 0);
      expect(total).toBeLessThanOrEqual(256 * 1024);
    }
  });

  it('keeps a FIFO group id SQS takes as it is: the entity key', async () => {
    sqsMock.reset();
    sqsMock.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    const event = makeEvent(9, { entityId: 'c-9:{x}' });

    await new SqsPublisher({ client, queueUrl: 'https://q/1/events.fifo' }).publish([event]);

    const [entry] = sentEntries();
    expect(entry?.MessageGroupId).toBe('customer:c-9:{x}');
    expect(entry?.MessageDeduplicationId).toBe(event.id);
  });
});
