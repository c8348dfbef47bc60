import type { AdminDeps } from './admin-deps.ts';
import {
  SUBSCRIPTION_HEALTH_PAGE_MAX,
  SubscriptionHealthListSchema,
  SubscriptionHealthQuerySchema,
} from './console-schemas.ts';
import { definedFields } from './defined-fields.ts';
import { deliveryView } from './delivery-view.ts';
import { defineReadRoute } from './read-route.ts';
import { AdminConflictError, type AdminRoute, defineRoute } from './route.ts';
import {
  CreateSubscriptionBodySchema,
  DeliveryListSchema,
  EmptySchema,
  PingResultSchema,
  RedeliverBodySchema,
  ResyncBodySchema,
  ResyncResultSchema,
  SubscriptionListSchema,
  SubscriptionViewSchema,
  SubscriptionWithSecretSchema,
  UpdateSubscriptionBodySchema,
} from './schemas.ts';
import { stateSnapshotSource } from './snapshot-source.ts';
import {
  encodeSubscriptionHealthCursor,
  SubscriptionHealthCursorSchema,
} from './subscription-health-cursor.ts';

const tag = 'subscriptions';

/** Loads a subscription that must be enabled; 404 when unknown, 409 when disabled. */
async function requireEnabled(id: string, deps: AdminDeps): Promise<void> {
  const subscription = await deps.webhooks.getSubscription(id);
  if (!subscription.enabled) {
    throw new AdminConflictError(
      `subscription ${id} is disabled (${subscription.disabledReason ?? 'by request'}); enable it with PATCH {"enabled": true}`,
    );
  }
}

/** Subscription routes: CRUD, secret rotation, ping, dead-letter redelivery, resync. */
export const SUBSCRIPTION_ROUTES: readonly AdminRoute[] = [
  defineReadRoute({
    path: '/subscriptions',
    operationId: 'listSubscriptions',
    summary: 'List subscriptions (secrets are never shown)',
    tag,
    schema: SubscriptionListSchema,
    read: async (_id, deps) => ({ subscriptions: await deps.webhooks.listSubscriptions() }),
  }),
  defineRoute({
    method: 'GET',
    // Before `/subscriptions/{id}`: the router takes the first route that matches (ids are `sub_…`).
    path: '/subscriptions/health',
    operationId: 'listSubscriptionHealth',
    summary: `Health of the subscriptions (each as GET /subscriptions/{id}/health), oldest first, ${SUBSCRIPTION_HEALTH_PAGE_MAX} at most an answer; a page that leaves subscriptions out gives nextCursor. What the console reads every 10 s`,
    tag,
    query: SubscriptionHealthQuerySchema,
    body: EmptySchema,
    success: { status: 200, schema: SubscriptionHealthListSchema },
    handle: async ({ query }, deps) => {
      const page = await deps.webhooks.subscriptionHealthPage({
        limit: query.limit ?? SUBSCRIPTION_HEALTH_PAGE_MAX,
        ...(query.cursor === undefined
          ? {}
          : { after: SubscriptionHealthCursorSchema.parse(query.cursor) }),
      });
      return {
        status: 200,
        body: {
          health: page.health,
          ...(page.next ? { nextCursor: encodeSubscriptionHealthCursor(page.next) } : {}),
        },
      };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/subscriptions',
    operationId: 'createSubscription',
    summary: 'Create a subscription; the response holds its whsec_ secret, shown only this once',
    tag,
    query: EmptySchema,
    body: CreateSubscriptionBodySchema,
    success: { status: 201, schema: SubscriptionWithSecretSchema },
    handle: async ({ body }, deps) => {
      const created = await deps.webhooks.createSubscription(definedFields(body));
      return { status: 201, body: { ...created.subscription, secret: created.secret } };
    },
  }),
  defineReadRoute({
    path: '/subscriptions/{id}',
    operationId: 'getSubscription',
    summary: 'Show one subscription',
    tag,
    schema: SubscriptionViewSchema,
    read: (id, deps) => deps.webhooks.getSubscription(id),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/subscriptions/{id}',
    operationId: 'updateSubscription',
    summary: 'Change URL, filters, description, retry schedule or enabled state',
    tag,
    query: EmptySchema,
    body: UpdateSubscriptionBodySchema,
    success: { status: 200, schema: SubscriptionViewSchema },
    handle: async ({ id, body }, deps) => ({
      status: 200,
      body: await deps.webhooks.updateSubscription(id, definedFields(body)),
    }),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/subscriptions/{id}',
    operationId: 'removeSubscription',
    summary: 'Remove a subscription',
    tag,
    query: EmptySchema,
    body: EmptySchema,
    success: { status: 204 },
    handle: async ({ id }, deps) => {
      await deps.webhooks.removeSubscription(id);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/subscriptions/{id}/rotate-secret',
    operationId: 'rotateSecret',
    summary: 'Issue a new secret; the old one keeps signing beside it for 24 h',
    tag,
    query: EmptySchema,
    body: EmptySchema,
    success: { status: 200, schema: SubscriptionWithSecretSchema },
    handle: async ({ id }, deps) => {
      const rotated = await deps.webhooks.rotateSecret(id);
      return { status: 200, body: { ...rotated.subscription, secret: rotated.secret } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/subscriptions/{id}/ping',
    operationId: 'pingSubscription',
    summary: 'Send a signed ping event to the subscription',
    tag,
    query: EmptySchema,
    body: EmptySchema,
    success: { status: 202, schema: PingResultSchema },
    handle: async ({ id }, deps) => {
      await requireEnabled(id, deps);
      return { status: 202, body: { delivery: deliveryView(await deps.webhooks.ping(id)) } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/subscriptions/{id}/redeliver',
    operationId: 'redeliverDeadLetters',
    summary: 'Deliver again every delivery dead-lettered since an instant',
    tag,
    query: EmptySchema,
    body: RedeliverBodySchema,
    success: { status: 202, schema: DeliveryListSchema },
    handle: async ({ id, body }, deps) => {
      await requireEnabled(id, deps);
      // Nothing died before 1970: an earlier instant asks for every dead letter, as 0 does.
      const sinceMs = Math.max(0, Date.parse(body.since));
      const deliveries = await deps.webhooks.redeliverDeadLetters(id, sinceMs);
      return { status: 202, body: { deliveries: deliveries.map(deliveryView) } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/subscriptions/{id}/resync',
    operationId: 'resyncSubscription',
    summary: 'Send the stored state of entity types as <entity>.snapshot events',
    tag,
    query: EmptySchema,
    body: ResyncBodySchema,
    success: { status: 202, schema: ResyncResultSchema },
    handle: async ({ id, body }, deps) => {
      await requireEnabled(id, deps);
      const source = stateSnapshotSource(deps.state, await deps.streams());
      return { status: 202, body: { sent: await deps.webhooks.resync(id, body.entities, source) } };
    },
  }),
];
