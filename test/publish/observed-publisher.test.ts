import { describe, expect, it } from 'vitest';
import {
  describeRefusal,
  ObservedPublisher,
  type Refusal,
} from '../../shared/publish/observed-publisher.ts';
import type { PublishableEvent } from '../../shared/publish/publishable-event.ts';
import type { EventPublisher, PublishResult } from '../../shared/publish/publisher.ts';

const event = (id: string, subject: string) =>
  ({ id, type: 'customer.updated', subject }) as unknown as PublishableEvent;

/** A target that refuses `evt_big` for good, as a transport refuses an event too large. */
const refusingTarget: EventPublisher = {
  async publish(events): Promise<PublishResult> {
    const big = events.filter((e) => e.id === 'evt_big');
    return {
      published: events.length - big.length,
      thinned: 0,
      failures: big.map((e) => ({
        eventId: e.id,
        eventType: e.type,
        target: 'local-router',
        code: 'EventTooLarge',
        message: 'event is 300123 bytes even without previous and patch; the limit is 262144',
      })),
    };
  },
};

describe('ObservedPublisher', () => {
  it('reports an event refused for good with its subject, and the others as published', async () => {
    const published: string[] = [];
    const refused: Refusal[] = [];
    const publisher = new ObservedPublisher(
      refusingTarget,
      (events) => published.push(...events.map((e) => e.id)),
      (refusals) => refused.push(...refusals),
    );
    await publisher.publish([event('evt_ok', 'c-1'), event('evt_big', 'c-2')]);
    expect(published).toEqual(['evt_ok']);
    expect(refused).toHaveLength(1);
    expect(describeRefusal(refused[0]!.failure, refused[0]!.subject)).toBe(
      'not published: customer.updated evt_big of c-2, refused by local-router (EventTooLarge): event is 300123 bytes even without previous and patch; the limit is 262144',
    );
  });

  it('says nothing of refusals when there are none', async () => {
    let calls = 0;
    const publisher = new ObservedPublisher(
      refusingTarget,
      () => undefined,
      () => calls++,
    );
    await publisher.publish([event('evt_ok', 'c-1')]);
    expect(calls).toBe(0);
  });
});
