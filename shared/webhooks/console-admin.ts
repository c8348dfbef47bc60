import { z } from 'zod';
import { parseOrThrow } from '../errors.ts';
import type { DispatcherDeps } from './dispatcher-deps.ts';
import { LIST_LIMIT_MAX } from './list-limit.ts';
import { matchesEventType, oldestFirst } from './subscription.ts';
import { requireSubscription } from './subscription-admin.ts';
import { readSubscriptionsHealth, type SubscriptionHealth } from './subscription-health.ts';

const FeedInputSchema = z.object({
  /**
   * Epoch ms: only events stored at or after it (the caller drops ids it already has). Before
   * 1970 it is negative, and every stored event is after it.
   */
  sinceMs: z.number().optional(),
  /** An event type or pattern (`customer.*`). */
  type: z.string().min(1).optional(),
  /** Part of the subject (entity id), case-insensitive. */
  subject: z.string().min(1).optional(),
  limit: z.number().int().positive().max(LIST_LIMIT_MAX).default(100),
});

/** An event in the live feed: enough to list and filter it without opening it. */
export interface FeedEvent {
  id: string;
  type: string;
  subject: string | null;
  /** Detection time (the event's `time`). */
  time: string | null;
  storedAt: string;
}

const FeedBodySchema = z.looseObject({
  subject: z.string().optional(),
  time: z.string().optional(),
});

const iso = (ms: number): string => new Date(ms).toISOString();

function readFeedFields(body: string): { subject: string | null; time: string | null } {
  try {
    const parsed = FeedBodySchema.safeParse(JSON.parse(body));
    if (parsed.success)
      return { subject: parsed.data.subject ?? null, time: parsed.data.time ?? null };
  } catch {
    // A body that is not JSON lists without subject and time.
  }
  return { subject: null, time: null };
}

/**
 * How long an event listed and not stored yet holds the feed's `until` back: a fan-out stores its
 * new events after its sends, seconds later (minutes with slow endpoints); one listed longer ago
 * was lost with its batch (a crash between the two writes; the batch runs again under new ids
 * only if its events were not stored) and must not hold the feed for good.
 */
export const FEED_UNSTORED_WAIT_MS = 5 * 60_000;

/** One read of the live feed ({@link createConsoleAdmin}'s `feedEvents`). */
export interface Feed {
  events: FeedEvent[];
  /**
   * Epoch ms before which the next read's `since` must not go: the list time of the oldest
   * event listed and not yet stored (within {@link FEED_UNSTORED_WAIT_MS}), which will show
   * with that time once stored; absent when there is none.
   */
  until?: number;
}

/**
 * Where a page of subscriptions, oldest first, ended: its last subscription's creation time and
 * id (the next page holds those after it in that order).
 */
export interface SubscriptionPosition {
  createdAt: string;
  id: string;
}

/** One page of {@link createConsoleAdmin}'s `subscriptionHealthPage`. */
export interface SubscriptionHealthPage {
  health: SubscriptionHealth[];
  /** Where the page ended, when subscriptions after it were left out. */
  next?: SubscriptionPosition;
}

/** See {@link createConsoleAdmin}'s `subscriptionHealthPage`. */
async function readHealthPage(
  options: { after?: SubscriptionPosition; limit?: number },
  deps: DispatcherDeps,
): Promise<SubscriptionHealthPage> {
  const { after, limit } = options;
  const subscriptions = (await deps.store.listSubscriptions())
    .filter((subscription) => after === undefined || oldestFirst(subscription, after) > 0)
    .sort(oldestFirst);
  const page = limit === undefined ? subscriptions : subscriptions.slice(0, limit);
  const health = await readSubscriptionsHealth(
    page.map((subscription) => subscription.id),
    deps,
  );
  const last = page.at(-1);
  if (page.length === subscriptions.length || last === undefined) return { health };
  return { health, next: { createdAt: last.createdAt, id: last.id } };
}

/** What the operator console reads beyond the other admin calls: the live feed and health. */
export function createConsoleAdmin(deps: DispatcherDeps) {
  return {
    /**
     * Stored events, newest first, with subject and detection time; filtered by type (or
     * pattern), by part of the subject, and by storage time (inclusive: events stored in
     * the same millisecond as the last poll come again, and the caller keeps each id once).
     * Filters apply to the newest {@link LIST_LIMIT_MAX} events of the type.
     */
    async feedEvents(input: unknown = {}): Promise<Feed> {
      const query = parseOrThrow(FeedInputSchema, input, 'feed query');
      const exactType = query.type !== undefined && !query.type.includes('*');
      const filtered = query.type !== undefined || query.subject !== undefined;
      const { events: stored, listedUnstored = [] } = await deps.store.listEvents({
        ...(exactType ? { type: query.type } : {}),
        limit: filtered ? LIST_LIMIT_MAX : query.limit,
      });
      const needle = query.subject?.toLowerCase();
      const feed: FeedEvent[] = [];
      for (const event of stored) {
        // Skipped, not the end: an event listed twice (two batches fanning it out at once, or
        // lists written before new events alone were listed) stands at its last listing with
        // the `storedAt` of its first, so newer events may follow it. The read is one page.
        if (query.sinceMs !== undefined && event.storedAt < query.sinceMs) continue;
        if (query.type !== undefined && !matchesEventType(query.type, event.type)) continue;
        const fields = readFeedFields(event.body);
        if (needle !== undefined && !fields.subject?.toLowerCase().includes(needle)) continue;
        feed.push({ id: event.id, type: event.type, ...fields, storedAt: iso(event.storedAt) });
        if (feed.length >= query.limit) break;
      }
      const recent = deps.clock.now() - FEED_UNSTORED_WAIT_MS;
      const waited = listedUnstored.filter((at) => at >= recent);
      return { events: feed, ...(waited.length > 0 ? { until: Math.min(...waited) } : {}) };
    },

    /**
     * Health of one subscription: its endpoint state (pause, run of failures) and the
     * success rate of the attempts of its newest deliveries. Throws WebhookNotFoundError.
     */
    async subscriptionHealth(id: string): Promise<SubscriptionHealth> {
      await requireSubscription(id, deps);
      const [health] = await readSubscriptionsHealth([id], deps);
      return health!;
    },

    /**
     * Health of the subscriptions after `after` (from the first without it), oldest first (see
     * {@link oldestFirst}), each as {@link subscriptionHealth} answers it; `limit` of them at
     * most (every one without it), with where the page ended when it left some out. Their
     * reads are shared (readSubscriptionsHealth): one answer for the console, which read one per
     * subscription every 10 s (API Gateway's rate limit refused those past ~40 subscriptions).
     */
    subscriptionHealthPage(
      options: { after?: SubscriptionPosition; limit?: number } = {},
    ): Promise<SubscriptionHealthPage> {
      return readHealthPage(options, deps);
    },

    /** Health of every subscription, oldest first: {@link subscriptionHealthPage} without a limit. */
    async allSubscriptionsHealth(): Promise<SubscriptionHealth[]> {
      return (await readHealthPage({}, deps)).health;
    },
  };
}
