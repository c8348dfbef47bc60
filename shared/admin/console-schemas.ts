import { z } from 'zod';
import { KnownEventTypePatternSchema } from '../webhooks/subscription.ts';
import { LimitQuerySchema, limitQuerySchema } from './schemas.ts';
import {
  SUBSCRIPTION_HEALTH_CURSOR_MAX_CHARS,
  SubscriptionHealthCursorSchema,
} from './subscription-health-cursor.ts';

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

/**
 * The most subscriptions one answer of `GET /subscriptions/health` holds, its `limit`'s maximum
 * and default: each costs a read of its delivery list and of its newest 50 deliveries (about
 * 5 ms locally when it has 50), so a page stays near a second locally and well within API
 * Gateway's 30 s in AWS, whatever the number of subscriptions.
 */
export const SUBSCRIPTION_HEALTH_PAGE_MAX = 200;

/** Query of `GET /subscriptions/health`: a page of `limit`, after the page `cursor` ended. */
export const SubscriptionHealthQuerySchema = z
  .object({
    limit: limitQuerySchema(SUBSCRIPTION_HEALTH_PAGE_MAX).meta({
      description: `At most this many subscriptions, oldest first (default and maximum ${SUBSCRIPTION_HEALTH_PAGE_MAX})`,
    }),
    cursor: z
      .string()
      .max(SUBSCRIPTION_HEALTH_CURSOR_MAX_CHARS, {
        error: 'must be a nextCursor a previous page gave',
      })
      .refine((text) => SubscriptionHealthCursorSchema.safeParse(text).success, {
        error: 'must be a nextCursor a previous page gave',
      })
      .optional()
      .meta({
        description:
          "The page after a previous one: that page's nextCursor, opaque (it encodes the last subscription that page held, in the list every caller may read whole)",
      }),
  })
  // A misspelt parameter would answer the first page as if it were another: refused, named.
  .strict();

/**
 * `GET /subscriptions/health`: the subscriptions' health, oldest subscription first, a page of
 * them, with `nextCursor` when subscriptions after them are left out.
 */
export const SubscriptionHealthListSchema = z.object({
  health: z.array(SubscriptionHealthSchema),
  /** Present when subscriptions after this page's are left out: pass it as `cursor` for the next page. */
  nextCursor: z.string().optional(),
});

/** Query of the console's page and assets: any (a bookmark may carry some), all ignored. */
export const AnyQuerySchema = z.looseObject({});

/** A page, script or stylesheet of the console. */
export const ConsoleAssetSchema = z.string();
