import { z } from 'zod';
import { BRIDGE_EVENT_SOURCE, cloudEventSchema } from './envelope.ts';

const BridgeSourceSchema = z.literal(BRIDGE_EVENT_SOURCE);

/** What every subscription event names: the subscription and its endpoint. */
const SubscriptionData = {
  subscriptionId: z.string().min(1),
  /** The origin of the subscription's endpoint URL (its path, query and user info may hold a secret). */
  url: z.url(),
};

/** Consecutive failed delivery attempts so far (or, on recovery, before it). */
const ConsecutiveFailuresSchema = z.int().nonnegative();

/** When the current run of failures began (ISO 8601 UTC). */
const FailingSinceSchema = z.iso.datetime();

/**
 * `subscription.disabled`: a subscription was disabled; `reason` says why, e.g. the
 * endpoint answered 410 Gone or failed without success for the configured period.
 * Its subject is the subscription id.
 */
export const SubscriptionDisabledEventSchema = cloudEventSchema(
  z.literal('subscription.disabled'),
  BridgeSourceSchema,
  z.object({
    ...SubscriptionData,
    reason: z.string().min(1),
    consecutiveFailures: ConsecutiveFailuresSchema.optional(),
    failingSince: FailingSinceSchema.optional(),
  }),
);

/**
 * `delivery.failing`: an endpoint keeps failing. `reason`, when present, is the last
 * failure (a status code or a network error, never a secret). Its subject is the
 * subscription id.
 */
export const DeliveryFailingEventSchema = cloudEventSchema(
  z.literal('delivery.failing'),
  BridgeSourceSchema,
  z.object({
    ...SubscriptionData,
    consecutiveFailures: ConsecutiveFailuresSchema,
    failingSince: FailingSinceSchema,
    reason: z.string().min(1).optional(),
  }),
);

/**
 * `delivery.recovered`: an endpoint that was failing accepted deliveries again (as many in a
 * row as failures announced the run);
 * `consecutiveFailures` and `failingSince`, when present, describe the run that ended.
 */
export const DeliveryRecoveredEventSchema = cloudEventSchema(
  z.literal('delivery.recovered'),
  BridgeSourceSchema,
  z.object({
    ...SubscriptionData,
    consecutiveFailures: ConsecutiveFailuresSchema.optional(),
    failingSince: FailingSinceSchema.optional(),
  }),
);

/** `ping`: a test event a user sends to check an endpoint. Its subject is the subscription id. */
export const PingEventSchema = cloudEventSchema(
  z.literal('ping'),
  BridgeSourceSchema,
  z.object({
    message: z.string(),
    subscriptionId: z.string().min(1).optional(),
    url: z.url().optional(),
  }),
);

/** The operational event schemas by type. */
export const OPERATIONAL_EVENT_SCHEMAS = {
  'subscription.disabled': SubscriptionDisabledEventSchema,
  'delivery.failing': DeliveryFailingEventSchema,
  'delivery.recovered': DeliveryRecoveredEventSchema,
  ping: PingEventSchema,
} as const;

/** One of the operational event types. */
export type OperationalEventType = keyof typeof OPERATIONAL_EVENT_SCHEMAS;
