import type { PublishableEvent } from './publishable-event.ts';
import {
  EMPTY_PUBLISH_RESULT,
  type EventPublisher,
  PublishError,
  type PublishFailure,
  type PublishOptions,
  type PublishResult,
} from './publisher.ts';

/**
 * Publishes the same events to several targets at once (EventBridge and SQS, say).
 * Every target is tried even when another fails; if any target throws, `publish` throws
 * (retryable only when every thrown error is), so the caller repeats the whole call and
 * the targets that had accepted see the same event ids again.
 * @example new MultiPublisher([eventBridgePublisher, sqsPublisher])
 */
export class MultiPublisher implements EventPublisher {
  private readonly targets: readonly EventPublisher[];

  constructor(targets: readonly EventPublisher[]) {
    this.targets = targets;
  }

  /**
   * See {@link EventPublisher.publish}. `published` counts the events every target
   * accepted; `failures` lists each target's refusals; `thinned` is the most events any
   * one target accepted only thin.
   */
  async publish(
    events: readonly PublishableEvent[],
    options?: PublishOptions,
  ): Promise<PublishResult> {
    if (events.length === 0) return EMPTY_PUBLISH_RESULT;
    const settled = await Promise.allSettled(
      this.targets.map((target) => target.publish(events, options)),
    );
    const errors = settled.flatMap((outcome) =>
      outcome.status === 'rejected' ? [outcome.reason] : [],
    );
    if (errors.length > 0) {
      const retryable = errors.every((error) => error instanceof PublishError && error.retryable);
      const reasons = errors.map((error) =>
        error instanceof Error ? error.message : String(error),
      );
      throw new PublishError(
        'multi',
        `${errors.length} of ${this.targets.length} targets failed: ${reasons.join('; ')}`,
        {
          cause: errors.length === 1 ? errors[0] : new AggregateError(errors),
          retryable,
        },
      );
    }
    const results = settled.flatMap((outcome) =>
      outcome.status === 'fulfilled' ? [outcome.value] : [],
    );
    const failures: PublishFailure[] = results.flatMap((result) => [...result.failures]);
    const failedIds = new Set(failures.map((failure) => failure.eventId));
    return {
      published: events.filter((event) => !failedIds.has(event.id)).length,
      thinned: Math.max(0, ...results.map((result) => result.thinned)),
      failures,
    };
  }
}
