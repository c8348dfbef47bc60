import type { PublishableEvent } from './publishable-event.ts';
import type { EventPublisher, PublishFailure, PublishOptions, PublishResult } from './publisher.ts';

/** An event refused for good, with its subject (the entity id) for the report. */
export interface Refusal {
  failure: PublishFailure;
  subject: string | undefined;
}

/**
 * Wraps a publisher and reports each event once it is accepted (the terminal's event lines,
 * counters), and each event refused for good (`onRefused`: a log line, so the change it
 * carries is never lost unsaid). Observers never affect the publish outcome.
 */
export class ObservedPublisher implements EventPublisher {
  constructor(
    private readonly inner: EventPublisher,
    private readonly onPublished: (
      events: readonly PublishableEvent[],
      result: PublishResult,
    ) => void,
    private readonly onRefused: (refusals: readonly Refusal[]) => void = () => undefined,
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
      if (failed.size > 0) this.onRefused(refusalsOf(events, result));
    } catch {
      // A broken observer (a closed terminal) must not turn a successful publish into a failure.
    }
    return result;
  }
}

/**
 * One line on an event refused for good (too large even thin, malformed): the change it
 * carries reaches no target, so it must not go unsaid. Pure.
 * @example describeRefusal(failure, 'c-1') // 'not published: customer.updated evt_… of c-1, refused by local-router (EventTooLarge): event is 300123 bytes …'
 */
export function describeRefusal(failure: PublishFailure, subject: string | undefined): string {
  const of = subject ? ` of ${subject}` : '';
  return `not published: ${failure.eventType} ${failure.eventId}${of}, refused by ${failure.target} (${failure.code}): ${failure.message}`;
}

/** The refusals of `result` with their events' subjects, for {@link describeRefusal}. */
export function refusalsOf(events: readonly PublishableEvent[], result: PublishResult): Refusal[] {
  if (result.failures.length === 0) return [];
  const subjects = new Map(events.map((event) => [event.id, event.subject]));
  return result.failures.map((failure) => ({ failure, subject: subjects.get(failure.eventId) }));
}
