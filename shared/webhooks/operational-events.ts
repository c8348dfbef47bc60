import { type EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { hashEventId } from '../changes/event-id.ts';
import type { Clock } from '../clock.ts';
import { BridgeError } from '../errors.ts';

/** Source of every event the bridge itself emits. */
export const OPERATIONAL_EVENT_SOURCE = 'change-bridge';

/** Types of the dispatcher's own events. */
export type OperationalEventType =
  | 'subscription.disabled'
  | 'delivery.failing'
  | 'delivery.recovered'
  | 'ping';

/** An operational event: the CloudEvents envelope of design.md with source `change-bridge`. */
export interface OperationalEvent {
  specversion: '1.0';
  id: string;
  type: OperationalEventType;
  source: typeof OPERATIONAL_EVENT_SOURCE;
  subject: string;
  time: string;
  datacontenttype: 'application/json';
  data: Record<string, unknown>;
}

/** Where operational events go (the lead wires it to the real publisher). */
export interface OperationalEventSink {
  publish(event: OperationalEvent): Promise<void>;
}

/**
 * Builds an operational event about `subscriptionId`; a `url` in `data` is cut to its origin
 * ({@link originOf}). The id hashes type, subject and `key`,
 * what the notice is about (a failing run's start): the same notice built twice, by two
 * deliveries failing at once or a retry, is one event. Without a key, the time stands in.
 * @example buildOperationalEvent('delivery.failing', 'sub_1', { consecutiveFailures: 4 }, clock, failingSince)
 */
export function buildOperationalEvent(
  type: OperationalEventType,
  subscriptionId: string,
  data: Record<string, unknown>,
  clock: Clock,
  key?: string,
): OperationalEvent {
  const time = new Date(clock.now()).toISOString();
  return {
    specversion: '1.0',
    id: hashEventId(['operational/v1', type, subscriptionId, key ?? time]),
    type,
    source: OPERATIONAL_EVENT_SOURCE,
    subject: subscriptionId,
    time,
    datacontenttype: 'application/json',
    data: {
      subscriptionId,
      ...data,
      ...(typeof data.url === 'string' && { url: originOf(data.url) }),
    },
  };
}

/**
 * The origin of an endpoint URL (scheme, host and port). Operational events reach every
 * subscription without a scope filter that takes them (matchesSubscription), not only the one
 * they name, and an endpoint's path, query or user info often carries its own secret
 * (`/services/T0/B0/XXXX`, `?code=`), which design.md keeps out of events.
 * @example originOf('https://user:pw@hooks.example.com/services/x?token=y') // 'https://hooks.example.com'
 */
export function originOf(url: string): string {
  return new URL(url).origin;
}

/** Collects published events, for tests and the one-process runtime. */
export class MemoryOperationalEventSink implements OperationalEventSink {
  readonly events: OperationalEvent[] = [];

  async publish(event: OperationalEvent): Promise<void> {
    this.events.push(event);
  }
}

/**
 * A minimal EventBridge sink: one `PutEvents` entry per event (Source = the configured
 * event source, DetailType = the event type, Detail = the event). The full publisher with
 * batching and retries lives in shared/publish/. Throws a retryable {@link BridgeError}
 * when EventBridge refuses the entry.
 */
export class EventBridgeOperationalEventSink implements OperationalEventSink {
  constructor(
    private readonly client: EventBridgeClient,
    private readonly eventBusName: string,
    private readonly source: string,
  ) {}

  async publish(event: OperationalEvent): Promise<void> {
    const result = await this.client.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: this.eventBusName,
            Source: this.source,
            DetailType: event.type,
            Detail: JSON.stringify(event),
            Time: new Date(event.time),
          },
        ],
      }),
    );
    if ((result.FailedEntryCount ?? 0) > 0) {
      const entry = result.Entries?.[0];
      throw new BridgeError(
        `EventBridge refused ${event.type} ${event.id}: ${entry?.ErrorCode ?? 'unknown'} ${entry?.ErrorMessage ?? ''}`.trim(),
        { retryable: true },
      );
    }
  }
}
