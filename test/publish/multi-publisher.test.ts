import { describe, expect, it } from 'vitest';
import { MultiPublisher } from '../../shared/publish/multi-publisher.ts';
import type { PublishableEvent } from '../../shared/publish/publishable-event.ts';
import {
  type EventPublisher,
  PublishError,
  type PublishResult,
} from '../../shared/publish/publisher.ts';
import { makeEvents } from './fixtures.ts';

/** A target that records what it got and answers as told. */
class RecordingPublisher implements EventPublisher {
  readonly received: PublishableEvent[][] = [];

  constructor(private readonly answer: (events: readonly PublishableEvent[]) => PublishResult) {}

  async publish(events: readonly PublishableEvent[]): Promise<PublishResult> {
    this.received.push([...events]);
    return this.answer(events);
  }
}

class FailingPublisher implements EventPublisher {
  constructor(private readonly error: Error) {}

  async publish(): Promise<PublishResult> {
    throw this.error;
  }
}

const acceptAll = (events: readonly PublishableEvent[]): PublishResult => ({
  published: events.length,
  thinned: 0,
  failures: [],
});

describe('MultiPublisher', () => {
  it('sends the same events to every target and counts those all accepted', async () => {
    const first = new RecordingPublisher(acceptAll);
    const second = new RecordingPublisher((events) => ({
      published: events.length - 1,
      thinned: 1,
      failures: [
        {
          eventId: events[0]!.id,
          eventType: events[0]!.type,
          target: 'sqs',
          code: 'EventTooLarge',
          message: 'big',
        },
      ],
    }));
    const events = makeEvents(3);

    const result = await new MultiPublisher([first, second]).publish(events);

    expect(first.received).toEqual([events]);
    expect(second.received).toEqual([events]);
    expect(result).toEqual({
      published: 2,
      thinned: 1,
      failures: [
        {
          eventId: events[0]!.id,
          eventType: 'customer.updated',
          target: 'sqs',
          code: 'EventTooLarge',
          message: 'big',
        },
      ],
    });
  });

  it('still publishes to the other targets when one throws, then throws retryable', async () => {
    const healthy = new RecordingPublisher(acceptAll);
    const broken = new FailingPublisher(new PublishError('sqs', 'throttled', { retryable: true }));

    await expect(
      new MultiPublisher([broken, healthy]).publish(makeEvents(2)),
    ).rejects.toMatchObject({
      name: 'PublishError',
      retryable: true,
    });
    expect(healthy.received).toHaveLength(1);
  });

  it('throws non-retryable when any target failed for good', async () => {
    const targets = [
      new FailingPublisher(new PublishError('sqs', 'throttled', { retryable: true })),
      new FailingPublisher(
        new PublishError('eventbridge', 'AccessDeniedException', { retryable: false }),
      ),
    ];
    await expect(new MultiPublisher(targets).publish(makeEvents(1))).rejects.toMatchObject({
      retryable: false,
    });
  });
});
