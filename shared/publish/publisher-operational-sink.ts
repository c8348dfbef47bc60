import type { OperationalEvent, OperationalEventSink } from '../webhooks/operational-events.ts';
import { PublishableEventSchema } from './publishable-event.ts';
import type { EventPublisher } from './publisher.ts';

/**
 * Sends the dispatcher's operational events (subscription.disabled, delivery.failing, …)
 * through a publisher: in AWS to the dispatch queue and the bus, locally through the event
 * router, so subscribers whose filters match them get them like any other event. Throws
 * when the publisher refuses the event.
 * @example new PublisherOperationalSink(new MultiPublisher([dispatchQueue, bus]))
 */
export class PublisherOperationalSink implements OperationalEventSink {
  constructor(private readonly publisher: EventPublisher) {}

  async publish(event: OperationalEvent): Promise<void> {
    const result = await this.publisher.publish([PublishableEventSchema.parse(event)]);
    const failure = result.failures[0];
    if (failure) throw new Error(`operational event ${event.id} not published: ${failure.message}`);
  }
}
