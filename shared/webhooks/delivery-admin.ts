import { z } from 'zod';
import { type EntityRecord, EntityTypeSchema } from '../changes/entity-types.ts';
import { BRIDGE_EVENT_SOURCE, connectorSource } from '../changes/envelope.ts';
import { buildSnapshotEvent } from '../changes/event.ts';
import { hashEventId } from '../changes/event-id.ts';
import { BridgeError, parseOrThrow, ValidationError } from '../errors.ts';
import { newDelivery, newDeliveryId, startDelivery } from './deliveries.ts';
import type { DispatcherDeps } from './dispatcher-deps.ts';
import { EventCursorSchema, encodeEventCursor } from './event-cursor.ts';
import { LIST_LIMIT_MAX } from './list-limit.ts';
import { DispatchEventSchema } from './messages.ts';
import { buildOperationalEvent } from './operational-events.ts';
import type { Attempt, Delivery } from './store.ts';
import {
  matchesSubscription,
  type Subscription,
  takesEntity,
  withinScope,
} from './subscription.ts';
import { requireSubscription, WebhookNotFoundError } from './subscription-admin.ts';

const ListEventsInputSchema = z.object({
  type: z.string().min(1).optional(),
  limit: z.number().int().positive().max(LIST_LIMIT_MAX).default(50),
  /** A page's `nextCursor`: the page after it. */
  cursor: EventCursorSchema.optional(),
});

const ListDeliveriesInputSchema = z.object({
  subscriptionId: z.string().min(1).optional(),
  eventId: z.string().min(1).optional(),
  limit: z.number().int().positive().max(LIST_LIMIT_MAX).default(50),
});

/** One stored entity as the snapshot source yields it. */
export interface SnapshotRecord {
  entityId: string;
  /** The record as the API returned it. */
  record: EntityRecord;
  scope?: { enterpriseId?: string; chainId?: string };
  /** The connection it came from; becomes the event source `connector/<connectionId>`. */
  connectionId?: string;
}

/** Stored snapshots of an entity type (the lead implements it over the state store). */
export interface SnapshotSource {
  list(entityType: string): AsyncIterable<SnapshotRecord>;
}

/** An event in the event list. */
export interface EventSummary {
  id: string;
  type: string;
  storedAt: string;
}

/** A page of the event list, and the cursor of the next when the page is full. */
export interface EventSummaryPage {
  events: EventSummary[];
  nextCursor?: string;
}

/** A delivery with its attempt log. */
export interface DeliveryWithAttempts {
  delivery: Delivery;
  attempts: Attempt[];
}

/** Events, replays, resync, ping and the delivery log. */
export function createDeliveryAdmin(deps: DispatcherDeps) {
  const requireEnabled = async (id: string): Promise<Subscription> => {
    const subscription = await requireSubscription(id, deps);
    if (!subscription.enabled) throw new BridgeError(`subscription ${id} is disabled`);
    return subscription;
  };

  const deliverStored = async (eventId: string, subscriptionId: string): Promise<Delivery> => {
    const now = deps.clock.now();
    const delivery = newDelivery(
      newDeliveryId(eventId, subscriptionId, deps),
      eventId,
      subscriptionId,
      now,
    );
    await startDelivery(delivery, deps);
    return delivery;
  };

  const storeEvent = async (event: { id: string; type: string }): Promise<void> => {
    const body = JSON.stringify(event);
    await deps.store.putEvent({ id: event.id, type: event.type, storedAt: deps.clock.now(), body });
  };

  /**
   * A page of stored events, newest first, optionally of one type, and when the page is full
   * the cursor of the next (`nextCursor`; a later page may be empty).
   */
  const listEventPage = async (input: unknown = {}): Promise<EventSummaryPage> => {
    const { cursor, ...query } = parseOrThrow(ListEventsInputSchema, input, 'event query');
    const page = await deps.store.listEvents({ ...query, ...(cursor ? { after: cursor } : {}) });
    return {
      events: page.events.map((e) => ({
        id: e.id,
        type: e.type,
        storedAt: new Date(e.storedAt).toISOString(),
      })),
      ...(page.next ? { nextCursor: encodeEventCursor(page.next) } : {}),
    };
  };

  return {
    /** Stored events, newest first, optionally of one type. */
    async listEvents(input: unknown = {}): Promise<EventSummary[]> {
      return (await listEventPage(input)).events;
    },

    /** A page of stored events and the next page's cursor (see listEventPage above). */
    listEventPage,

    /** One stored event as JSON; throws {@link WebhookNotFoundError}. */
    async getEvent(id: string): Promise<unknown> {
      const event = await deps.store.getEvent(id);
      if (!event) throw new WebhookNotFoundError(`event ${id} is not stored`);
      return JSON.parse(event.body);
    },

    /**
     * Sends a stored event again, with its original id, to one subscription or to every
     * enabled subscription it matches now. Returns the new deliveries. A subscription named
     * must take the event (its filters: types, scope, changed fields) or have been sent it
     * before (a ping, a resync's snapshot, filters changed since); otherwise a ValidationError
     * naming `subscriptionId`, never a webhook its receiver did not ask for.
     */
    async replayEvent(eventId: string, subscriptionId?: string): Promise<Delivery[]> {
      const stored = await deps.store.getEvent(eventId);
      if (!stored) throw new WebhookNotFoundError(`event ${eventId} is not stored`);
      const event = DispatchEventSchema.parse(JSON.parse(stored.body));
      if (subscriptionId !== undefined) {
        const subscription = await requireEnabled(subscriptionId);
        const sentBefore = async () =>
          (await deps.store.listDeliveries({ eventId, subscriptionId, limit: 1 })).length > 0;
        if (!matchesSubscription(subscription, event) && !(await sentBefore()))
          throw new ValidationError('replay', [
            {
              path: 'subscriptionId',
              message: `subscription ${subscriptionId} does not take this ${event.type} event (its filters: ${filtersOf(subscription)})`,
            },
          ]);
        return [await deliverStored(eventId, subscriptionId)];
      }
      const targets = (await deps.store.listSubscriptions()).filter(
        (s) => s.enabled && matchesSubscription(s, event),
      );
      return Promise.all(targets.map((s) => deliverStored(eventId, s.id)));
    },

    /** Delivers again every delivery of a subscription dead-lettered since `sinceMs`. */
    async redeliverDeadLetters(subscriptionId: string, sinceMs: number): Promise<Delivery[]> {
      const since = parseOrThrow(z.number().nonnegative(), sinceMs, 'since');
      await requireEnabled(subscriptionId);
      const redelivered: Delivery[] = [];
      for (const id of await deps.store.listDeadLetters(subscriptionId, since)) {
        const dead = await deps.store.getDelivery(id);
        if (!dead) continue;
        redelivered.push(await deliverStored(dead.eventId, subscriptionId));
        await deps.store.removeDeadLetter(dead);
      }
      return redelivered;
    },

    /**
     * Sends the current stored snapshot of each entity type to one subscription as
     * `<entity>.snapshot` events (change `snapshot`, no previous, no patch), so a new
     * subscriber starts with the full picture. The subscription's filters hold: an entity type
     * none of its patterns names is refused (ValidationError), and records outside its scope
     * filter are not sent. Returns the number of events sent.
     */
    async resync(
      subscriptionId: string,
      entityTypes: readonly string[],
      source: SnapshotSource,
    ): Promise<number> {
      const types = parseOrThrow(z.array(EntityTypeSchema).min(1), entityTypes, 'entityTypes');
      const subscription = await requireEnabled(subscriptionId);
      const refused = types.findIndex((type) => !takesEntity(subscription, type));
      if (refused >= 0)
        throw new ValidationError('resync', [
          {
            path: `entities[${refused}]`,
            message: `the subscription takes no ${types[refused]} events (events: ${subscription.events.join(', ')})`,
          },
        ]);
      const now = deps.clock.now();
      const time = new Date(now).toISOString();
      let sent = 0;
      for (const entityType of types) {
        for await (const snapshot of source.list(entityType)) {
          // Its scope filter holds for snapshots as for changes: no other hotel's records.
          if (!withinScope(subscription, snapshot.scope)) continue;
          // Two connections may hold the same record (an enterprise and its portfolio): each
          // sends its own snapshot, with its own source, under its own id.
          // The one snapshot builder, for the order and values of every event's data; the id is
          // the resync's own (per subscription and time: a resync is sent again when asked),
          // and a record of no connection comes from the bridge itself.
          const event = buildSnapshotEvent({
            connectionId: snapshot.connectionId ?? '',
            entityType,
            entityId: snapshot.entityId,
            scope: snapshot.scope ?? {},
            detectedAt: now,
            current: snapshot.record,
            id: hashEventId([
              'snapshot/v2',
              subscriptionId,
              snapshot.connectionId ?? '',
              entityType,
              snapshot.entityId,
              time,
            ]),
            source: snapshot.connectionId
              ? connectorSource(snapshot.connectionId)
              : BRIDGE_EVENT_SOURCE,
          });
          await storeEvent(event);
          await deliverStored(event.id, subscriptionId);
          sent += 1;
        }
      }
      return sent;
    },

    /** Sends a `ping` test event to one subscription; returns its delivery. */
    async ping(subscriptionId: string): Promise<Delivery> {
      const subscription = await requireEnabled(subscriptionId);
      const event = buildOperationalEvent(
        'ping',
        subscription.id,
        {
          message: 'ping from change-bridge: your endpoint is reachable and verifies signatures',
          url: subscription.url,
        },
        deps.clock,
      );
      await storeEvent(event);
      return deliverStored(event.id, subscription.id);
    },

    /** Deliveries (newest first) with their attempt logs, by subscription, by event, or all. */
    async listDeliveries(input: unknown = {}): Promise<DeliveryWithAttempts[]> {
      const query = parseOrThrow(ListDeliveriesInputSchema, input, 'delivery query');
      if (query.subscriptionId !== undefined || query.eventId !== undefined)
        return deps.store.listDeliveryRecords(query);
      const subscriptions = await deps.store.listSubscriptions();
      const perSubscription = await Promise.all(
        subscriptions.map((s) =>
          deps.store.listDeliveryRecords({ subscriptionId: s.id, limit: query.limit }),
        ),
      );
      return perSubscription
        .flat()
        .sort((a, b) => b.delivery.createdAt - a.delivery.createdAt)
        .slice(0, query.limit);
    },
  };
}

/** A subscription's filters in a phrase, for a refusal. */
function filtersOf(subscription: Subscription): string {
  const parts = [`events ${subscription.events.join(', ')}`];
  const scope = [
    ...(subscription.scope?.enterpriseIds ?? []),
    ...(subscription.scope?.chainIds ?? []),
  ];
  if (scope.length > 0) parts.push(`scope ${scope.join(', ')}`);
  if (subscription.changedFields?.length)
    parts.push(`changed fields ${subscription.changedFields.join(', ')}`);
  return parts.join('; ');
}
