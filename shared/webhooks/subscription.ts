import { z } from 'zod';
import { EventTypeSchema } from '../changes/catalogue.ts';
import { hashedIdPattern } from '../changes/event-id.ts';
import type { DispatchEvent } from './messages.ts';

/** What every subscription's id starts with; the rest is a hash's (hashedId in event-id.ts). */
export const SUBSCRIPTION_ID_PREFIX = 'sub_';

/** Shape of every subscription's id, as `subscriptions add` and `list` print it: `sub_` and 26 characters. */
export const SUBSCRIPTION_ID_PATTERN = hashedIdPattern(SUBSCRIPTION_ID_PREFIX);

/** Longest retry schedule a subscription may set (attempts after the first). */
export const RETRY_SCHEDULE_MAX_STEPS = 20;
/** Longest single step of a retry schedule: 1 day. */
export const RETRY_STEP_MAX_MS = 24 * 60 * 60 * 1000;

const PATTERN_MESSAGE = 'must be an event type such as customer.updated, customer.* or *';

/**
 * An event type filter as stored: `customer.updated`, `customer.*`, `*.deleted` or `*`. New
 * filters are checked against the catalogue too ({@link KnownEventTypePatternSchema}).
 */
export const EventTypePatternSchema = z
  .string()
  .regex(/^(\*|[A-Za-z][A-Za-z0-9]*)(\.(\*|[A-Za-z][A-Za-z0-9]*))*$/, {
    message: PATTERN_MESSAGE,
  });

/**
 * An event type filter given by a user: an {@link EventTypePatternSchema} that matches at least
 * one event type of the catalogue (`Customer.Updated` or `custmer.*` would never match: an
 * error naming the field, not a subscription that silently receives nothing).
 */
export const KnownEventTypePatternSchema = EventTypePatternSchema.refine(
  (pattern) => EventTypeSchema.options.some((type) => matchesEventType(pattern, type)),
  { message: `${PATTERN_MESSAGE}, of the catalogue (README, Events): it matches no event type` },
);

/**
 * The event type filters a user gives a subscription: 1 to 100 {@link KnownEventTypePatternSchema},
 * each kept once, in the order first given (`customer.updated,customer.updated` is one filter).
 */
export const EventPatternsInputSchema = z
  .array(KnownEventTypePatternSchema)
  .min(1, { error: 'give at least one pattern such as customer.* or resource.updated' })
  .max(100, { error: 'give at most 100 patterns' })
  .overwrite((patterns) => [...new Set(patterns)]);

/** Optional scope filter: an event matches when its enterprise or chain id is listed. */
export const ScopeFilterSchema = z
  .object({
    enterpriseIds: z.array(z.string().min(1)).max(100).optional(),
    chainIds: z.array(z.string().min(1)).max(100).optional(),
  })
  .strict();

/** A per-subscription retry schedule: delays in ms after attempt 1, 2, … */
export const RetryScheduleSchema = z
  .array(z.number().int().positive().max(RETRY_STEP_MAX_MS))
  .min(1)
  .max(RETRY_SCHEDULE_MAX_STEPS);

/** Earlier secrets kept signing at most: rotating more often drops the oldest. */
export const PREVIOUS_SECRETS_MAX = 5;

/** An earlier secret during its grace period. */
export const RetiringSecretSchema = z.object({
  secret: z.string().startsWith('whsec_'),
  /** Epoch ms until which it still signs. */
  expiresAt: z.number(),
});
/** An earlier secret during its grace period. */
export type RetiringSecret = z.infer<typeof RetiringSecretSchema>;

/** A stored subscription, secrets included (never returned by the admin API: see {@link toSubscriptionView}). */
export const SubscriptionSchema = z.object({
  id: z.string().min(1),
  url: z.string().min(1),
  events: z.array(EventTypePatternSchema).min(1),
  scope: ScopeFilterSchema.optional(),
  changedFields: z.array(z.string().min(1)).optional(),
  description: z.string().optional(),
  enabled: z.boolean(),
  disabledReason: z.string().optional(),
  retrySchedule: RetryScheduleSchema.optional(),
  /**
   * Deliveries in flight to this endpoint (its URL) at most (default 16); it adapts below this on
   * 429, 503 and timeouts. Subscriptions to one URL share it: the smallest one set holds.
   */
  maxConcurrency: z.number().int().min(1).max(256).optional(),
  /** Deliveries per second at most to its URL, when set (the smallest of those to the URL). */
  rateLimitPerSecond: z.number().positive().max(10_000).optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
  secret: z.string().startsWith('whsec_'),
  /** Earlier secrets that still sign beside the current one, newest first, each until its expiry. */
  previousSecrets: z.array(RetiringSecretSchema).max(PREVIOUS_SECRETS_MAX).optional(),
  /** Written before previousSecrets (one earlier secret); still read, never written. */
  previousSecret: z.string().startsWith('whsec_').optional(),
  /** Epoch ms until which {@link previousSecret} still signs. */
  previousSecretExpiresAt: z.number().optional(),
  /**
   * Counts the changes of the stored subscription (absent before the first, and on items written
   * before versions): a change is stored only over the version it was made from
   * (`WebhookStore.replaceSubscription`). Never shown by the admin API.
   */
  version: z.number().int().nonnegative().optional(),
});

/** A stored subscription. */
export type Subscription = z.infer<typeof SubscriptionSchema>;

/** What the admin API shows of a subscription: everything but the secrets and the version. */
export type SubscriptionView = Omit<
  Subscription,
  'secret' | 'previousSecrets' | 'previousSecret' | 'previousSecretExpiresAt' | 'version'
>;

/**
 * Orders subscriptions oldest first, by creation time and then id (subscriptions created in
 * the same millisecond keep one order, which pages of them follow).
 * @example subscriptions.sort(oldestFirst)
 */
export function oldestFirst(
  a: Pick<Subscription, 'createdAt' | 'id'>,
  b: Pick<Subscription, 'createdAt' | 'id'>,
): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Strips the secrets (and the stored version) from a subscription. */
export function toSubscriptionView(subscription: Subscription): SubscriptionView {
  const {
    secret: _s,
    previousSecrets: _ps,
    previousSecret: _p,
    previousSecretExpiresAt: _e,
    version: _v,
    ...view
  } = subscription;
  return view;
}

/** True when `pattern` (`*` matches one whole segment; a lone `*` matches all) covers `type`. */
export function matchesEventType(pattern: string, type: string): boolean {
  if (pattern === '*') return true;
  const want = pattern.split('.');
  const have = type.split('.');
  if (want.length !== have.length) return false;
  return want.every((part, index) => part === '*' || part === have[index]);
}

/**
 * True when a record of `scope` passes the subscription's scope filter (an enterprise or a
 * chain it names); always true without one.
 */
export function withinScope(
  subscription: Subscription,
  scope: { enterpriseId?: string | undefined; chainId?: string | undefined } | null | undefined,
): boolean {
  const filter = subscription.scope;
  if (!filter || !(filter.enterpriseIds?.length || filter.chainIds?.length)) return true;
  const inEnterprise =
    scope?.enterpriseId !== undefined && (filter.enterpriseIds ?? []).includes(scope.enterpriseId);
  const inChain = scope?.chainId !== undefined && (filter.chainIds ?? []).includes(scope.chainId);
  return inEnterprise || inChain;
}

/**
 * True when the subscription takes some event of `entityType` (a pattern naming it or `*` as
 * its entity): what a resync of that entity may send it.
 */
export function takesEntity(subscription: Subscription, entityType: string): boolean {
  return subscription.events.some((pattern) => {
    const [entity] = pattern.split('.');
    return pattern === '*' || entity === '*' || entity === entityType;
  });
}

/**
 * True when the event passes every filter of the subscription (enabled state is not checked).
 * A changed-field filter narrows updates to those where a listed field changed; creates,
 * deletes and snapshots pass, since for them every field is new (or gone). A create's
 * `changedFields` names every field of its record, so it is not read: a record without the
 * listed field (an account note under an `Email` filter) is created all the same.
 */
export function matchesSubscription(subscription: Subscription, event: DispatchEvent): boolean {
  if (!subscription.events.some((pattern) => matchesEventType(pattern, event.type))) return false;
  if (!withinScope(subscription, event.data?.scope)) return false;
  const fields = subscription.changedFields;
  const changed = event.data?.changedFields;
  if (fields?.length && changed?.length && !event.type.endsWith('.created')) {
    if (!changed.some((field) => fields.includes(field))) return false;
  }
  return true;
}
