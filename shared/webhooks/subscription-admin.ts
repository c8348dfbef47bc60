import { z } from 'zod';
import { hashedId } from '../changes/event-id.ts';
import type { HostResolver } from '../dns/system-resolver.ts';
import { BridgeError, parseOrThrow, ValidationError } from '../errors.ts';
import type { DispatcherDeps } from './dispatcher-deps.ts';
import { foldEndpointState } from './endpoint-state-fold.ts';
import { generateSecret, type RandomBytes, retiringSecrets } from './signing.ts';
import { freshEndpointState, type WebhookStore } from './store.ts';
import {
  EventPatternsInputSchema,
  oldestFirst,
  PREVIOUS_SECRETS_MAX,
  RetryScheduleSchema,
  type ScopeFilterSchema,
  SUBSCRIPTION_ID_PREFIX,
  type Subscription,
  type SubscriptionView,
  toSubscriptionView,
} from './subscription.ts';
import { changeSubscription, type SubscriptionChanged } from './subscription-change.ts';
import { checkWebhookUrl, everRefused, type UrlPolicy } from './url-policy.ts';

/** Default grace period of a rotated secret: 24 h. */
export const SECRET_ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

/**
 * The longest scope id or changed-field path a subscription takes: far past any real one
 * (ids are GUIDs), and 100 of each stay well inside one stored item (DynamoDB: 400 KB), where
 * longer ones fit the request body but made the store refuse the item (a 500).
 */
export const FILTER_TEXT_MAX_LENGTH = 256;

const FilterTextSchema = z.string().min(1).max(FILTER_TEXT_MAX_LENGTH);

/** The scope filter as a caller gives it: {@link ScopeFilterSchema} with ids of bounded length. */
const ScopeFilterInputSchema = z
  .object({
    enterpriseIds: z.array(FilterTextSchema).max(100).optional(),
    chainIds: z.array(FilterTextSchema).max(100).optional(),
  })
  .strict() satisfies z.ZodType<z.infer<typeof ScopeFilterSchema>>;

/**
 * What the WHATWG URL parser removes from a URL without a word: C0 controls and spaces at either
 * end, ASCII tabs and line breaks anywhere.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the controls are what it finds.
const URL_DROPPED_CHARACTERS = /^[\u0000-\u0020]|[\u0000-\u0020]$|[\t\n\r]/;

/** Input of `createSubscription`. `events` defaults to every event (`*`). */
export const CreateSubscriptionInputSchema = z.object({
  url: z
    .string()
    .min(1)
    .max(2048)
    // The URL parser drops them silently (leading and trailing spaces and controls, tabs and
    // line breaks anywhere): a pasted ` https://…` or `…\n` was stored and listed as given.
    .refine((url) => !URL_DROPPED_CHARACTERS.test(url), {
      message:
        'must not hold spaces, tabs or line breaks around it (or tabs and line breaks in it)',
      abort: true,
    })
    // The form, and what no policy allows: the address policy (https off loopback, no private
    // hosts, what the host resolves to) is the service's.
    .refine((url) => URL.canParse(url), { message: 'is not an absolute URL', abort: true })
    .refine((url) => /^https?:$/.test(new URL(url).protocol), {
      message: 'must use http or https',
      abort: true,
    })
    .superRefine((url, context) => {
      const refusal = everRefused(new URL(url));
      if (refusal) context.addIssue({ code: 'custom', message: refusal });
    }),
  events: EventPatternsInputSchema.default(['*']),
  scope: ScopeFilterInputSchema.optional(),
  changedFields: z.array(FilterTextSchema).max(100).optional(),
  description: z.string().max(500).optional(),
  retrySchedule: RetryScheduleSchema.optional(),
  maxConcurrency: z.number().int().min(1).max(256).optional(),
  rateLimitPerSecond: z.number().positive().max(10_000).optional(),
});

/**
 * Input of `updateSubscription`: any field of the create input, and `enabled`. A field left out
 * stays as it is: no default of the create input applies (`events` would become `*`).
 */
export const UpdateSubscriptionInputSchema = CreateSubscriptionInputSchema.partial().extend({
  events: EventPatternsInputSchema.optional(),
  enabled: z.boolean().optional(),
});

/** A subscription with the only copy of its secret the caller will ever see. */
export interface SubscriptionWithSecret {
  subscription: SubscriptionView;
  secret: string;
}

/** A subscription, event or delivery that does not exist. */
export class WebhookNotFoundError extends BridgeError {
  override name = 'WebhookNotFoundError';
}

/**
 * A subscription URL whose host could not be looked up for now (no name server answered, or
 * the process is stopping): not invalid input, so the admin API answers 503 and the CLI exits 1;
 * the same request may pass later. `field` names the URL's field.
 */
export class WebhookUrlUndecidedError extends BridgeError {
  override name = 'WebhookUrlUndecidedError';
  readonly field = 'url';
}

/** What the admin service needs beyond the dispatcher's dependencies. */
export interface WebhookAdminDeps extends DispatcherDeps {
  policy: UrlPolicy;
  resolve: HostResolver;
  randomBytes: RandomBytes;
}

/** Loads a subscription or throws {@link WebhookNotFoundError}. */
export async function requireSubscription(id: string, deps: DispatcherDeps): Promise<Subscription> {
  const subscription = await deps.store.getSubscription(id);
  if (!subscription) throw subscriptionNotFound(id);
  return subscription;
}

function subscriptionNotFound(id: string): WebhookNotFoundError {
  return new WebhookNotFoundError(`subscription ${id} does not exist`);
}

/**
 * Changes a subscription as one of its writes in this process (`endpointWrites`) and over the
 * version it was read at (`changeSubscription`): a change made at the same time, here or in
 * another process (a rotation, a dispatcher's disable), is kept. 404 when it does not exist, or
 * was removed meanwhile.
 */
async function changeExisting(
  id: string,
  deps: DispatcherDeps,
  change: Parameters<typeof changeSubscription>[2],
): Promise<SubscriptionChanged> {
  const changed = await deps.endpointWrites.run(id, () =>
    changeSubscription(deps.store, id, change),
  );
  if (!changed) throw subscriptionNotFound(id);
  return changed;
}

async function validateUrl(url: string, deps: WebhookAdminDeps): Promise<void> {
  const check = await checkWebhookUrl(url, deps.policy, deps.resolve);
  if (!check.ok && check.undecided)
    throw new WebhookUrlUndecidedError(`url could not be checked now: ${check.reason}; try again`, {
      retryable: true,
    });
  if (!check.ok)
    throw new ValidationError('subscription', [{ path: 'url', message: check.reason }]);
}

/** Subscription management: create, list, show, update, remove, rotate the secret. */
export function createSubscriptionAdmin(deps: WebhookAdminDeps) {
  const nowIso = () => new Date(deps.clock.now()).toISOString();
  return {
    /** Creates a subscription; throws {@link ValidationError} naming the field (e.g. `url`). */
    async createSubscription(input: unknown): Promise<SubscriptionWithSecret> {
      const fields = parseOrThrow(CreateSubscriptionInputSchema, input, 'subscription');
      await validateUrl(fields.url, deps);
      const idSeed = Buffer.from(deps.randomBytes(16)).toString('hex');
      const secret = generateSecret(deps.randomBytes);
      const subscription: Subscription = {
        ...fields,
        id: hashedId(SUBSCRIPTION_ID_PREFIX, ['subscription/v1', idSeed]),
        enabled: true,
        createdAt: nowIso(),
        updatedAt: nowIso(),
        secret,
      };
      await deps.store.putSubscription(subscription);
      return { subscription: toSubscriptionView(subscription), secret };
    },

    /** Every subscription, without secrets. */
    async listSubscriptions(): Promise<SubscriptionView[]> {
      const all = await deps.store.listSubscriptions();
      return all.map(toSubscriptionView).sort(oldestFirst);
    },

    /** One subscription without secrets; throws {@link WebhookNotFoundError}. */
    async getSubscription(id: string): Promise<SubscriptionView> {
      return toSubscriptionView(await requireSubscription(id, deps));
    },

    /**
     * Changes filters, URL, description, schedule or enabled state. Enabling a disabled
     * subscription clears its failure history, so it starts healthy; disabling it stops the
     * requests of this process's running batches to it before their next one.
     */
    async updateSubscription(id: string, input: unknown): Promise<SubscriptionView> {
      const fields = parseOrThrow(UpdateSubscriptionInputSchema, input, 'subscription');
      await requireSubscription(id, deps);
      if (fields.url !== undefined) await validateUrl(fields.url, deps);
      const definedFields = Object.fromEntries(
        Object.entries(fields).filter(([, value]) => value !== undefined),
      );
      // The 404 comes before the URL's lookup (requireSubscription above); the change is made
      // over what is stored when it is written (changeExisting). Disabled between two folds of
      // its endpoint's health: no
      // notice this process decided on it still enabled is published after this write (see
      // actOnNotices).
      const { before: current, after: next } = await changeExisting(id, deps, async (current) => {
        const next: Subscription = { ...current, ...definedFields, updatedAt: nowIso() };
        if (fields.enabled === true && !current.enabled) {
          next.disabledReason = undefined;
          await startHealthy(id, deps.store);
        }
        return next;
      });
      // The process's batches running now send it nothing more (as after a 410).
      if (current.enabled && !next.enabled) deps.scheduler.noteDisabled(id);
      return toSubscriptionView(next);
    },

    /**
     * Removes a subscription; its pending deliveries are dead-lettered when they come up, and
     * the process's batches running now send it nothing more. Throws WebhookNotFoundError when
     * there is none to remove: of two requests removing one subscription at once, one removes
     * it and the other is told it is not there (as a second request after the first is).
     */
    async removeSubscription(id: string): Promise<void> {
      if (!(await deps.store.deleteSubscription(id))) throw subscriptionNotFound(id);
      deps.scheduler.noteDisabled(id);
    },

    /**
     * Issues a new secret. The old one keeps signing (beside the new) for `graceMs`
     * (default 24 h), so receivers can switch without missing a delivery; earlier secrets
     * still in their grace period keep signing too (at most {@link PREVIOUS_SECRETS_MAX}).
     */
    async rotateSecret(
      id: string,
      graceMs = SECRET_ROTATION_GRACE_MS,
    ): Promise<SubscriptionWithSecret> {
      const grace = parseOrThrow(z.number().int().nonnegative(), graceMs, 'graceMs');
      // Of two rotations (or a rotation and an update) at once, the later starts from the
      // earlier's secrets (changeExisting), so every secret answered signs.
      const secret = generateSecret(deps.randomBytes);
      const changed = await changeExisting(id, deps, (current) => {
        const now = deps.clock.now();
        // Every earlier secret still in its grace period keeps signing until its own expiry,
        // so rotating twice in a day does not drop the secret receivers may still verify with.
        const {
          previousSecret: _legacy,
          previousSecretExpiresAt: _legacyExpiry,
          ...rest
        } = current;
        return {
          ...rest,
          secret,
          previousSecrets: [
            { secret: current.secret, expiresAt: now + grace },
            ...retiringSecrets(current, now),
          ].slice(0, PREVIOUS_SECRETS_MAX),
          updatedAt: nowIso(),
        };
      });
      return { subscription: toSubscriptionView(changed.after), secret };
    },
  };
}

/**
 * Clears an endpoint's failure history and pause (enabling a subscription starts it healthy),
 * over whatever a dispatcher wrote meanwhile.
 */
async function startHealthy(
  subscriptionId: string,
  store: Pick<WebhookStore, 'getEndpointState' | 'putEndpointState'>,
): Promise<void> {
  const known =
    (await store.getEndpointState(subscriptionId)) ?? freshEndpointState(subscriptionId);
  await foldEndpointState(store, known, () => ({
    state: freshEndpointState(subscriptionId),
    changed: true,
  }));
}
