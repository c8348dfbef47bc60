import { definedFields } from './defined-fields.ts';
import { attemptView, deliveryView } from './delivery-view.ts';
import { defineReadRoute } from './read-route.ts';
import { AdminConflictError, type AdminRoute, defineRoute } from './route.ts';
import {
  DeliveryListSchema,
  DeliveryLogSchema,
  EmptySchema,
  EventListSchema,
  ListDeliveriesQuerySchema,
  ListEventsQuerySchema,
  ReplayBodySchema,
  StoredEventBodySchema,
} from './schemas.ts';

/** Event routes (list, show, replay) and the delivery log. */
export const EVENT_ROUTES: readonly AdminRoute[] = [
  defineRoute({
    method: 'GET',
    path: '/events',
    operationId: 'listEvents',
    summary: 'Stored events, newest first, optionally of one type; a full page gives nextCursor',
    tag: 'events',
    query: ListEventsQuerySchema,
    body: EmptySchema,
    success: { status: 200, schema: EventListSchema },
    handle: async ({ query }, deps) => ({
      status: 200,
      body: await deps.webhooks.listEventPage(
        definedFields({ type: query.type, limit: query.limit, cursor: query.cursor }),
      ),
    }),
  }),
  defineReadRoute({
    path: '/events/{id}',
    operationId: 'getEvent',
    summary: 'One stored event, exactly as delivered',
    tag: 'events',
    schema: StoredEventBodySchema,
    read: (id, deps) => deps.webhooks.getEvent(id),
  }),
  defineRoute({
    method: 'POST',
    path: '/events/{id}/replay',
    operationId: 'replayEvent',
    summary: 'Send a stored event again (same id) to one subscription or to every matching one',
    tag: 'events',
    query: EmptySchema,
    body: ReplayBodySchema,
    success: { status: 202, schema: DeliveryListSchema },
    handle: async ({ id, body }, deps) => {
      if (body.subscriptionId !== undefined) {
        // Unknown or disabled target: 404 / 409 rather than the service's generic refusal.
        const target = await deps.webhooks.getSubscription(body.subscriptionId);
        if (!target.enabled) throw new AdminConflictError(`subscription ${target.id} is disabled`);
      }
      return {
        status: 202,
        body: {
          deliveries: (await deps.webhooks.replayEvent(id, body.subscriptionId)).map(deliveryView),
        },
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/deliveries',
    operationId: 'listDeliveries',
    summary: 'Deliveries with their attempt logs, newest first',
    tag: 'deliveries',
    query: ListDeliveriesQuerySchema,
    body: EmptySchema,
    success: { status: 200, schema: DeliveryLogSchema },
    handle: async ({ query }, deps) => ({
      status: 200,
      body: {
        deliveries: (
          await deps.webhooks.listDeliveries(
            definedFields({
              subscriptionId: query.subscription,
              eventId: query.event,
              limit: query.limit,
            }),
          )
        ).map(({ delivery, attempts }) => ({
          delivery: deliveryView(delivery),
          attempts: attempts.map(attemptView),
        })),
      },
    }),
  }),
];
