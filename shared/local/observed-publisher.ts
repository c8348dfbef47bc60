import type { PublishableEvent } from '../publish/publishable-event.ts';
import type { EventPublisher, PublishOptions, PublishResult } from '../publish/publisher.ts';

/**
 * Wraps a publisher and reports each event once it is accepted (the terminal's event lines,
 * counters). Observers never affect the publish outcome.
 */
export class ObservedPublisher implements EventPublisher {
  constructor(
    private readonly inner: EventPublisher,
    private readonly onPublished: (
      events: readonly PublishableEvent[],
      result: PublishResult,
    ) => void,
  ) {}

  async publish(
    events: readonly PublishableEvent[],
    options?: PublishOptions,
  ): Promise<PublishResult> {
    const result = await this.inner.publish(events, options);
    const failed = new Set(result.failures.map((failure) => failure.eventId));
    try {
      this.onPublished(
        events.filter((event) => !failed.has(event.id)),
        result,
      );
    } catch {
      // A broken observer (a closed terminal) must not turn a successful publish into a failure.
    }
    return result;
  }
}
