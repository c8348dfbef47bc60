import {
  EventBridgeClient,
  PutEventsCommand,
  type PutEventsCommandInput,
  type PutEventsRequestEntry,
  ThrottlingException,
} from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.ts';
import { EventBridgePublisher } from '../../shared/publish/event-bridge-publisher.ts';
import { MemoryPublishMetrics } from '../../shared/publish/publish-metrics.ts';
import type { PublishableEvent } from '../../shared/publish/publishable-event.ts';
import { PublishError } from '../../shared/publish/publisher.ts';
import { PUBLISH_RETRY_OPTIONS } from '../../shared/publish/retry-backoff.ts';
import { driveClock } from './clock-driver.ts';
import { makeEvent, makeEvents } from './fixtures.ts';

const eventBridge = mockClient(EventBridgeClient);
// The mock patches the client class for the whole worker: undone when this file ends.
afterAll(() => eventBridge.restore());

/** The entry the adapter must send, written out here independently of its code. */
function expectedEntry(event: PublishableEvent): PutEventsRequestEntry {
  return {
    Source: 'change-bridge',
    DetailType: event.type,
    Detail: JSON.stringify(event),
    EventBusName: 'changes',
    Resources: [
      `change-bridge:enterprise/${event.data.scope?.enterpriseId}`,
      `change-bridge:entity/${event.data.entityType}/${event.data.entityId}`,
    ],
    Time: new Date(event.time),
  };
}

/** AWS's entry size formula, restated for the test. */
function awsEntrySize(entry: PutEventsRequestEntry): number {
  const bytes = (value: string | undefined) => Buffer.byteLength(value ?? '', 'utf8');
  return (
    (entry.Time ? 14 : 0) +
    bytes(entry.Source) +
    bytes(entry.DetailType) +
    bytes(entry.Detail) +
    (entry.Resources ?? []).reduce((sum, resource) => sum + bytes(resource), 0)
  );
}

function sentInputs(): PutEventsCommandInput[] {
  return eventBridge.commandCalls(PutEventsCommand).map((call) => call.args[0].input);
}

function acceptAll(): void {
  eventBridge.on(PutEventsCommand).callsFake((input: PutEventsCommandInput) => ({
    FailedEntryCount: 0,
    Entries: (input.Entries ?? []).map((_, index) => ({ EventId: `eb-${index}` })),
  }));
}

describe('EventBridgePublisher', () => {
  let clock: ManualClock;
  let metrics: MemoryPublishMetrics;
  let publisher: EventBridgePublisher;

  beforeEach(() => {
    eventBridge.reset();
    clock = new ManualClock();
    metrics = new MemoryPublishMetrics();
    publisher = new EventBridgePublisher({
      client: new EventBridgeClient({ region: 'us-east-1' }),
      eventBusName: 'changes',
      clock,
      random: () => 0.5,
      metrics,
    });
  });

  afterEach(() => eventBridge.reset());

  it.each([
    [1, [1]],
    [10, [10]],
    [11, [10, 1]],
    [25, [10, 10, 5]],
  ])('sends %i events as the exact PutEvents commands of %j entries', async (count, sizes) => {
    acceptAll();
    const events = makeEvents(count);
    const result = await publisher.publish(events);

    const expected: PutEventsCommandInput[] = [];
    let offset = 0;
    for (const size of sizes) {
      expected.push({ Entries: events.slice(offset, offset + size).map(expectedEntry) });
      offset += size;
    }
    expect(sentInputs()).toEqual(expected);
    expect(result).toEqual({ published: count, thinned: 0, failures: [] });
    expect(metrics.publishedCount('eventbridge', 'customer.updated')).toBe(count);
    expect(metrics.batchSizes('eventbridge')).toEqual(sizes);
  });

  it('writes the event as Detail, its type as DetailType and its scope into Resources', async () => {
    acceptAll();
    const event = makeEvent(7, { entityType: 'resource', change: 'created', enterpriseId: 'e-42' });
    await publisher.publish([event]);

    const [entry] = sentInputs()[0]?.Entries ?? [];
    expect(entry?.DetailType).toBe('resource.created');
    expect(JSON.parse(entry?.Detail ?? '')).toEqual(event);
    expect(entry?.Resources).toEqual([
      'change-bridge:enterprise/e-42',
      'change-bridge:entity/resource/c7',
    ]);
  });

  it('splits batches so that no request exceeds 256 KB by the AWS entry size formula', async () => {
    acceptAll();
    const events = makeEvents(10, { previousPadding: 60_000 });
    await publisher.publish(events);

    const inputs = sentInputs();
    expect(inputs.map((input) => input.Entries?.length)).toEqual([4, 4, 2]);
    for (const input of inputs) {
      const total = (input.Entries ?? []).reduce((sum, entry) => sum + awsEntrySize(entry), 0);
      expect(total).toBeLessThanOrEqual(256 * 1024);
    }
  });

  /** Event `index` padded so that its entry is `bytes` long by the AWS formula. */
  function eventOfEntrySize(index: number, bytes: number): PublishableEvent {
    const unpadded = awsEntrySize(expectedEntry(makeEvent(index)));
    return makeEvent(index, { previousPadding: bytes - unpadded });
  }

  it('sends an entry of exactly 256 KiB thin: EventBridge wants the entry size less than 256 KB', async () => {
    acceptAll();
    const event = eventOfEntrySize(0, 256 * 1024);
    expect(awsEntrySize(expectedEntry(event))).toBe(256 * 1024);

    const result = await publisher.publish([event]);

    const [entry] = sentInputs()[0]?.Entries ?? [];
    expect(JSON.parse(entry?.Detail ?? '').data.truncated).toBe(true);
    expect(awsEntrySize(entry!)).toBeLessThan(256 * 1024);
    expect(result).toEqual({ published: 1, thinned: 1, failures: [] });
  });

  it('never puts entries totalling 256 KiB in one request', async () => {
    acceptAll();
    const events = [eventOfEntrySize(0, 128 * 1024), eventOfEntrySize(1, 128 * 1024)];

    await publisher.publish(events);

    expect(sentInputs()).toEqual([
      { Entries: [expectedEntry(events[0]!)] },
      { Entries: [expectedEntry(events[1]!)] },
    ]);
  });

  it('retries only the failed entry after a jittered backoff on the injected clock', async () => {
    const events = makeEvents(3);
    eventBridge
      .on(PutEventsCommand)
      .resolvesOnce({
        FailedEntryCount: 1,
        Entries: [
          { EventId: 'eb-0' },
          { ErrorCode: 'ThrottlingException', ErrorMessage: 'Rate exceeded' },
          { EventId: 'eb-2' },
        ],
      })
      .resolvesOnce({ FailedEntryCount: 0, Entries: [{ EventId: 'eb-1' }] });

    const publishing = publisher.publish(events);
    await clock.advance(0);
    expect(sentInputs()).toHaveLength(1);
    expect(clock.pendingSleeps).toBe(1);
    // First retry: full jitter below 100 ms; random 0.5 gives 50 ms.
    await clock.advance(49);
    expect(sentInputs()).toHaveLength(1);
    await clock.advance(1);
    const result = await publishing;

    expect(sentInputs()).toEqual([
      { Entries: events.map(expectedEntry) },
      { Entries: [expectedEntry(events[1]!)] },
    ]);
    expect(result).toEqual({ published: 3, thinned: 0, failures: [] });
    expect(metrics.retriedCount()).toBe(1);
  });

  it('reports an entry refused as malformed without retrying it', async () => {
    eventBridge.on(PutEventsCommand).resolves({
      FailedEntryCount: 1,
      Entries: [{ EventId: 'eb-0' }, { ErrorCode: 'MalformedDetail', ErrorMessage: 'bad json' }],
    });
    const events = makeEvents(2);
    const result = await publisher.publish(events);

    expect(sentInputs()).toHaveLength(1);
    expect(result.published).toBe(1);
    expect(result.failures).toEqual([
      {
        eventId: events[1]!.id,
        eventType: 'customer.updated',
        target: 'eventbridge',
        code: 'MalformedDetail',
        message: 'bad json',
      },
    ]);
    expect(metrics.failures()).toEqual([
      { target: 'eventbridge', eventType: 'customer.updated', reason: 'MalformedDetail', count: 1 },
    ]);
  });

  it('reports an entry refused with ValidationException, a permanent code, and publishes the others', async () => {
    eventBridge.on(PutEventsCommand).resolves({
      FailedEntryCount: 1,
      Entries: [
        { EventId: 'eb-0' },
        { ErrorCode: 'ValidationException', ErrorMessage: 'constraint failed' },
        { EventId: 'eb-2' },
      ],
    });
    const events = makeEvents(3);

    const outcome = await driveClock(clock, publisher.publish(events)).catch(
      (caught: unknown) => caught,
    );

    expect(sentInputs()).toHaveLength(1);
    expect(outcome).toEqual({
      published: 2,
      thinned: 0,
      failures: [
        {
          eventId: events[1]!.id,
          eventType: 'customer.updated',
          target: 'eventbridge',
          code: 'ValidationException',
          message: 'constraint failed',
        },
      ],
    });
  });

  it('throws a retryable PublishError once retries are exhausted, after exactly maxAttempts requests', async () => {
    eventBridge.on(PutEventsCommand).resolves({
      FailedEntryCount: 1,
      Entries: [{ ErrorCode: 'InternalFailure', ErrorMessage: 'try later' }],
    });
    const publishing = publisher.publish([makeEvent(0)]);
    const error = await driveClock(clock, publishing).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(PublishError);
    expect(error).toMatchObject({ retryable: true, target: 'eventbridge' });
    expect(sentInputs()).toHaveLength(PUBLISH_RETRY_OPTIONS.maxAttempts);
    expect(metrics.failures()).toEqual([
      {
        target: 'eventbridge',
        eventType: 'customer.updated',
        reason: 'RetriesExhausted',
        count: 1,
      },
    ]);
  });

  it('retries an entry refused with a code AWS does not document, then reports it rather than failing the publish for ever', async () => {
    // A code not in the PutEventsResultEntry lists may be transient: it is retried with backoff
    // as InternalFailure is. Still refused once the attempts run out, it is reported for its
    // event (EventsFailed with that code) and the others go out, so the poll commits its window
    // instead of repeating the same refusal at every poll.
    const events = makeEvents(3);
    // The second event alone is refused each time: the first request holds all three.
    eventBridge
      .on(PutEventsCommand)
      .resolvesOnce({
        FailedEntryCount: 1,
        Entries: [
          { EventId: 'eb-0' },
          { ErrorCode: 'SomeFutureException', ErrorMessage: 'not today' },
          { EventId: 'eb-2' },
        ],
      })
      .resolves({
        FailedEntryCount: 1,
        Entries: [{ ErrorCode: 'SomeFutureException', ErrorMessage: 'not today' }],
      });

    const outcome = await driveClock(clock, publisher.publish(events)).catch(
      (caught: unknown) => caught,
    );

    expect(sentInputs()).toHaveLength(PUBLISH_RETRY_OPTIONS.maxAttempts);
    expect(metrics.retriedCount()).toBe(PUBLISH_RETRY_OPTIONS.maxAttempts - 1);
    expect(outcome).toEqual({
      published: 2,
      thinned: 0,
      failures: [
        {
          eventId: events[1]!.id,
          eventType: 'customer.updated',
          target: 'eventbridge',
          code: 'SomeFutureException',
          message: `not today (an undocumented code, still refused after ${PUBLISH_RETRY_OPTIONS.maxAttempts} attempts)`,
        },
      ],
    });
    expect(metrics.failures()).toEqual([
      {
        target: 'eventbridge',
        eventType: 'customer.updated',
        reason: 'SomeFutureException',
        count: 1,
      },
    ]);
  });

  it('throws, to be repeated, when a documented transient refusal outlasts the attempts beside an undocumented one', async () => {
    eventBridge.on(PutEventsCommand).resolves({
      FailedEntryCount: 2,
      Entries: [
        { ErrorCode: 'SomeFutureException', ErrorMessage: 'not today' },
        { ErrorCode: 'ThrottlingException', ErrorMessage: 'Rate exceeded' },
      ],
    });
    const error = await driveClock(clock, publisher.publish(makeEvents(2))).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(PublishError);
    expect(error).toMatchObject({ retryable: true });
    expect(sentInputs()).toHaveLength(PUBLISH_RETRY_OPTIONS.maxAttempts);
  });

  it('throws a non-retryable PublishError when the bus refuses permission', async () => {
    eventBridge.on(PutEventsCommand).resolves({
      FailedEntryCount: 1,
      Entries: [{ ErrorCode: 'AccessDeniedException', ErrorMessage: 'not allowed' }],
    });
    await expect(publisher.publish([makeEvent(0)])).rejects.toMatchObject({
      name: 'PublishError',
      retryable: false,
    });
    expect(sentInputs()).toHaveLength(1);
  });

  it('sends again, after a jittered backoff, the batch whose whole PutEvents was throttled, and only it', async () => {
    const events = makeEvents(11);
    eventBridge
      .on(PutEventsCommand)
      .callsFakeOnce((input: PutEventsCommandInput) => ({
        FailedEntryCount: 0,
        Entries: (input.Entries ?? []).map((_, index) => ({ EventId: `eb-${index}` })),
      }))
      .rejectsOnce(new ThrottlingException({ message: 'Rate exceeded', $metadata: {} }))
      .resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'eb-10' }] });
    const publisher = new EventBridgePublisher({
      client: new EventBridgeClient({ region: 'us-east-1' }),
      eventBusName: 'changes',
      concurrency: 1,
      clock,
      random: () => 0.5,
      metrics,
    });

    const publishing = publisher.publish(events);
    await clock.advance(0);
    expect(sentInputs()).toHaveLength(2);
    // First retry: full jitter below 100 ms; random 0.5 gives 50 ms.
    await clock.advance(49);
    expect(sentInputs()).toHaveLength(2);
    await clock.advance(1);
    const result = await publishing;

    expect(sentInputs()).toEqual([
      { Entries: events.slice(0, 10).map(expectedEntry) },
      { Entries: [expectedEntry(events[10]!)] },
      { Entries: [expectedEntry(events[10]!)] },
    ]);
    expect(result).toEqual({ published: 11, thinned: 0, failures: [] });
    expect(metrics.retriedCount()).toBe(1);
  });

  it('throws a retryable PublishError when the whole PutEvents stays throttled for maxAttempts requests', async () => {
    eventBridge
      .on(PutEventsCommand)
      .rejects(new ThrottlingException({ message: 'Rate exceeded', $metadata: {} }));
    const error = await driveClock(clock, publisher.publish([makeEvent(0)])).catch(
      (caught: unknown) => caught,
    );

    expect(error).toBeInstanceOf(PublishError);
    expect(error).toMatchObject({ retryable: true, target: 'eventbridge' });
    expect(String(error)).toContain('ThrottlingException');
    expect(sentInputs()).toHaveLength(PUBLISH_RETRY_OPTIONS.maxAttempts);
    expect(metrics.failures()).toEqual([
      {
        target: 'eventbridge',
        eventType: 'customer.updated',
        reason: 'RetriesExhausted',
        count: 1,
      },
    ]);
  });

  it('throws a retryable PublishError when the request itself fails', async () => {
    eventBridge.on(PutEventsCommand).rejects(new Error('socket hang up'));
    await expect(publisher.publish([makeEvent(0)])).rejects.toMatchObject({
      name: 'PublishError',
      retryable: true,
    });
  });

  it('publishes an event over 256 KB thin: without previous and patch, flagged truncated', async () => {
    acceptAll();
    const big = makeEvent(0, { previousPadding: 300_000 });
    const small = makeEvent(1);
    const result = await publisher.publish([big, small]);

    const entries = sentInputs().flatMap((input) => input.Entries ?? []);
    expect(entries).toHaveLength(2);
    const detail = JSON.parse(entries[0]?.Detail ?? '');
    expect(detail.id).toBe(big.id);
    expect(detail.data.truncated).toBe(true);
    expect(detail.data).not.toHaveProperty('previous');
    expect(detail.data).not.toHaveProperty('patch');
    expect(detail.data.current).toEqual(big.data.current);
    expect(awsEntrySize(entries[0]!)).toBeLessThanOrEqual(256 * 1024);
    expect(entries[1]).toEqual(expectedEntry(small));
    expect(result).toEqual({ published: 2, thinned: 1, failures: [] });
  });

  it('never sends an event still over 256 KB when thin, and reports it', async () => {
    acceptAll();
    const huge = makeEvent(0, { currentPadding: 300_000 });
    const result = await publisher.publish([huge, makeEvent(1)]);

    const sentIds = sentInputs()
      .flatMap((input) => input.Entries ?? [])
      .map((entry) => JSON.parse(entry.Detail ?? '').id);
    expect(sentIds).toEqual([makeEvent(1).id]);
    expect(result.published).toBe(1);
    expect(result.failures).toMatchObject([
      { eventId: huge.id, code: 'EventTooLarge', target: 'eventbridge' },
    ]);
  });

  it('uses the configured source and sends nothing for no events', async () => {
    acceptAll();
    const custom = new EventBridgePublisher({
      client: new EventBridgeClient({ region: 'us-east-1' }),
      source: 'acme.changes',
    });
    expect(await custom.publish([])).toEqual({ published: 0, thinned: 0, failures: [] });
    expect(sentInputs()).toHaveLength(0);
    await custom.publish([makeEvent(0)]);
    expect(sentInputs()[0]?.Entries?.[0]).toMatchObject({
      Source: 'acme.changes',
      EventBusName: 'default',
    });
  });
});

describe('EventBridgePublisher under PutEvents throttling', () => {
  const client = new EventBridgeClient({ region: 'us-east-1' });
  let clock: ManualClock;
  let start: number;
  /** When each PutEvents went out, in ms since the test began. */
  let sentAt: number[];

  /** Throttles every entry until `until` on the clock (forever by default), then accepts. */
  function throttleUntil(until = Number.POSITIVE_INFINITY): void {
    eventBridge.on(PutEventsCommand).callsFake((input: PutEventsCommandInput) => {
      sentAt.push(clock.now() - start);
      const throttled = clock.now() - start < until;
      return {
        FailedEntryCount: throttled ? (input.Entries ?? []).length : 0,
        Entries: (input.Entries ?? []).map((_, index) =>
          throttled
            ? { ErrorCode: 'ThrottlingException', ErrorMessage: 'Rate exceeded' }
            : { EventId: `eb-${index}` },
        ),
      };
    });
  }

  /**
   * Moves the clock 10 ms at a time until `promise` settles; its error, if any. A send may land
   * up to a step after its backoff ends, hence the 10 ms per try allowed below.
   */
  async function settle(promise: Promise<unknown>): Promise<unknown> {
    let settled = false;
    const outcome = promise.then(
      () => {
        settled = true;
        return undefined;
      },
      (error: unknown) => {
        settled = true;
        return error;
      },
    );
    for (let step = 0; !settled && step < 10_000; step++) await clock.advance(10);
    return outcome;
  }

  beforeEach(() => {
    eventBridge.reset();
    clock = new ManualClock();
    start = clock.now();
    sentAt = [];
  });
  afterEach(() => eventBridge.reset());

  it('publishes an entry throttled for 5 s, retrying with backoff instead of failing the poll', async () => {
    throttleUntil(5_000);
    const publisher = new EventBridgePublisher({ client, clock, random: () => 0.5 });

    const error = await settle(publisher.publish([makeEvent(0)]));

    expect(error).toBeUndefined();
    // Half of each cap: 50, 100, 200, 400, 800, 1600 and 2500 ms between the tries, so the
    // eighth goes out at 5650 ms, past the throttling.
    expect(sentAt).toHaveLength(8);
    expect(sentAt.at(-1)).toBeGreaterThanOrEqual(5_650);
    expect(sentAt.at(-1)).toBeLessThanOrEqual(5_650 + 8 * 10);
  });

  it('gives up on an entry throttled for good after 9 tries and at most 16.3 s of waiting', async () => {
    throttleUntil();
    const publisher = new EventBridgePublisher({ client, clock, random: () => 0.999_999 });

    const error = await settle(publisher.publish([makeEvent(0)]));

    expect(error).toBeInstanceOf(PublishError);
    expect(error).toMatchObject({ retryable: true });
    expect(sentAt).toHaveLength(9);
    expect(sentAt.at(-1)).toBeGreaterThan(16_000);
    expect(sentAt.at(-1)).toBeLessThanOrEqual(16_300 + 9 * 10);
  });

  it('waits for no retry past the deadline of the publish, and throws before it', async () => {
    throttleUntil();
    const publisher = new EventBridgePublisher({
      client,
      clock,
      random: () => 0.5,
      retry: { maxAttempts: 20 },
    });
    const deadline = start + 2_000;

    const error = await settle(publisher.publish([makeEvent(0)], { deadline }));

    expect(error).toBeInstanceOf(PublishError);
    expect(String(error)).toContain('deadline');
    // At 0, 50, 150, 350, 750 and 1550 ms: the next, 1600 ms on, would come after 2000.
    expect(sentAt).toHaveLength(6);
    expect(clock.now()).toBeLessThanOrEqual(deadline);
  });
});
