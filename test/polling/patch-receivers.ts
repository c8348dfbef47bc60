/** Publish targets and receivers for tests of how events chain (`patch` after `patch`). */
import type { EntityEvent } from '../../shared/changes/entity-event-schema.ts';
import type { PublishableEvent } from '../../shared/publish/publishable-event.ts';
import { type EventPublisher, PublishError } from '../../shared/publish/publisher.ts';
import { applyJsonPatch } from '../changes/apply-json-patch.ts';

/** One publish target: it keeps what it accepts, or refuses the whole call while `failing`. */
export class Target implements EventPublisher {
  readonly accepted: EntityEvent[] = [];
  failing = false;
  constructor(readonly name: string) {}
  async publish(events: readonly PublishableEvent[]) {
    if (this.failing)
      throw new PublishError(this.name, 'the queue is unavailable', { retryable: true });
    this.accepted.push(...(events as unknown as EntityEvent[]));
    return { published: events.length, thinned: 0, failures: [] };
  }
}

/**
 * A receiver that keeps each entity by applying `patch` to what it holds, event after event,
 * deduplicating on ids (it starts from an event's `previous` when it holds nothing yet).
 */
export function applyInOrder(events: readonly EntityEvent[]) {
  const held = new Map<string, unknown>();
  const seen = new Set<string>();
  /** Events whose `previous` was not what the receiver held when it came. */
  const unchained: string[] = [];
  for (const event of events) {
    if (seen.has(event.id)) continue;
    seen.add(event.id);
    const { entityId, change, previous, current, patch } = event.data;
    if (change === 'created') held.set(entityId, current);
    else if (change === 'deleted') held.delete(entityId);
    else {
      const before = held.get(entityId) ?? previous;
      if (JSON.stringify(before) !== JSON.stringify(previous)) unchained.push(event.id);
      held.set(entityId, applyJsonPatch(before, patch ?? []));
    }
  }
  return { held, unchained };
}
