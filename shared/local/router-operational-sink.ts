import { PublishableEventSchema } from '../publish/publishable-event.ts';
import type { EventPublisher } from '../publish/publisher.ts';
import type { OperationalEvent, OperationalEventSink } from '../webhooks/operational-events.ts';

/**
 * Sends operational events (subscription.disabled, delivery.failing, …) through the local
 * event router, as the Lambda dispatcher sends them to the bus: subscribers whose filters
 * match them get them like any other event.
 */
export class RouterOperationalSink implements OperationalEventSink {
  constructor(private readonly router: EventPublisher) {}

  async publish(event: OperationalEvent): Promise<void> {
    const result = await this.router.publish([PublishableEventSchema.parse(event)]);
    const failure = result.failures[0];
    if (failure) throw new Error(`operational event ${event.id} not routed: ${failure.message}`);
  }
}
