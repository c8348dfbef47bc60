import { z } from 'zod';
import { KnownEventTypePatternSchema } from '../webhooks/subscription.ts';
import { LimitQuerySchema } from './schemas.ts';

/*
 * Schemas of the routes the operator console adds (shared/admin/routes-console.ts): the
 * live feed and the health of a subscription. The page reads everything else from the
 * routes every client uses.
 */

/** Query of `GET /feed`. */
export const FeedQuerySchema = z
  .object({
    since: z.iso
      .datetime({ offset: true })
      .optional()
      .meta({ description: 'Only events stored at or after this instant (ISO 8601)' }),
    type: KnownEventTypePatternSchema.optional().meta({
      description:
        'An event type or pattern of the catalogue: customer.updated, customer.*, *.deleted (400 when it matches no event type)',
    }),
    subject: z.string().min(1).optional().meta({
      description:
        'Part of the subject (entity id), case-insensitive. A subject or a type pattern (with *) is searched among the newest 1000 events (of the type, when an exact type is given)',
    }),
    limit: LimitQuerySchema,
  })
  // A misspelt filter would answer the unfiltered feed: refused, named.
  .strict();

/** One event of the feed. */
export const FeedEventSchema = z.object({
  id: z.string(),
  type: z.string(),
  subject: z.string().nullable(),
  time: z.string().nullable(),
  storedAt: z.string(),
});

/**
 * `GET /feed`: events newest first, and the server time to pass as `since` next (held back to
 * the time of an event listed and not stored yet, so the next read finds it).
 */
export const FeedSchema = z.object({
  events: z.array(FeedEventSchema),
  now: z.string().meta({
    description:
      'Pass as since next: the time of the read, or earlier while an event of before it is listed and not stored yet (its batch stores it after its sends), so that event comes in a later read',
  }),
});

/** `GET /subscriptions/{id}/health`. Times are ISO 8601 UTC. */
export const SubscriptionHealthSchema = z.object({
  subscriptionId: z.string(),
  /** Attempts of the subscription's newest 50 deliveries (HEALTH_SAMPLE_DELIVERIES), as the rates and counts below. */
  attempts: z.number().int().nonnegative().meta({
    description:
      "Attempts of the subscription's newest 50 deliveries: attempts, successRate, the last success and failure, pending and dead are over those; pausedUntil, consecutiveFailures and failingSince are the endpoint's own",
  }),
  successRate: z.number().min(0).max(1).nullable(),
  lastSuccessAt: z.string().nullable(),
  lastFailureAt: z.string().nullable(),
  lastFailure: z.string().nullable(),
  pausedUntil: z.string().nullable(),
  consecutiveFailures: z.number().int().nonnegative(),
  failingSince: z.string().nullable(),
  pending: z.number().int().nonnegative(),
  dead: z.number().int().nonnegative(),
});

/** `GET /subscriptions/health`: every subscription's health, oldest subscription first. */
export const SubscriptionHealthListSchema = z.object({ health: z.array(SubscriptionHealthSchema) });

/** Query of the console's page and assets: any (a bookmark may carry some), all ignored. */
export const AnyQuerySchema = z.looseObject({});

/** A page, script or stylesheet of the console. */
export const ConsoleAssetSchema = z.string();
