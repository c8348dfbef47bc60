import { createConsoleAdmin } from './console-admin.ts';
import { createDeliveryAdmin } from './delivery-admin.ts';
import { createSubscriptionAdmin, type WebhookAdminDeps } from './subscription-admin.ts';

/**
 * The webhook admin service the HTTP admin API and the CLI call: subscriptions, secret
 * rotation, events, replay, dead-letter redelivery, resync, ping and the delivery log.
 * Inputs are validated with zod; a bad one throws a ValidationError naming the field,
 * an unknown id a WebhookNotFoundError.
 * @example const webhooks = createWebhookService(deps); const { secret } = await webhooks.createSubscription({ url, events: ['customer.*'] });
 */
export function createWebhookService(deps: WebhookAdminDeps) {
  return {
    ...createSubscriptionAdmin(deps),
    ...createDeliveryAdmin(deps),
    ...createConsoleAdmin(deps),
  };
}

/** The admin service (see {@link createWebhookService}). */
export type WebhookService = ReturnType<typeof createWebhookService>;
