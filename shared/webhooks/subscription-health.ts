import type { Attempt, DeliveryRecord, EndpointState, WebhookStore } from './store.ts';

/** Deliveries whose attempts make up a subscription's health figures. */
export const HEALTH_SAMPLE_DELIVERIES = 50;

/**
 * Subscriptions whose health {@link readSubscriptionsHealth} reads in one go: their endpoint
 * states in one batch read, their deliveries' records in shared ones. The go's records (50 a
 * subscription) are held at once: a bound on memory, not on speed.
 */
export const HEALTH_READ_CHUNK = 100;

/** Health of a subscription's endpoint at a glance. Times are ISO 8601 UTC. */
export interface SubscriptionHealth {
  subscriptionId: string;
  /** Attempts among the newest {@link HEALTH_SAMPLE_DELIVERIES} deliveries. */
  attempts: number;
  /** Share of those attempts that delivered (0..1); null without attempts. */
  successRate: number | null;
  lastSuccessAt: string | null;
  lastFailureAt: string | null;
  /** HTTP status or error of the last failed attempt. */
  lastFailure: string | null;
  pausedUntil: string | null;
  consecutiveFailures: number;
  failingSince: string | null;
  /** Deliveries of the sample still pending, and dead-lettered. */
  pending: number;
  dead: number;
}

const iso = (ms: number | undefined): string | null =>
  ms === undefined ? null : new Date(ms).toISOString();

function lastOf(attempts: readonly Attempt[], delivered: boolean): Attempt | undefined {
  return attempts
    .filter((attempt) => (attempt.outcome === 'delivered') === delivered)
    .reduce<Attempt | undefined>(
      (last, attempt) => (!last || attempt.at > last.at ? attempt : last),
      undefined,
    );
}

/** A failed attempt in a few words: its HTTP status, or the error when no response came. */
function describeFailure(attempt: Attempt): string {
  if (attempt.status !== undefined) return `HTTP ${attempt.status}`;
  return attempt.error ?? 'failed';
}

/**
 * A subscription's health from its endpoint's state (absent: healthy, never failed) and the
 * records of its newest deliveries, at `nowMs` (a pause that ended is not shown). Pure.
 * @example summarizeHealth('sub_1', undefined, [], now).successRate // null
 */
export function summarizeHealth(
  subscriptionId: string,
  endpoint: EndpointState | undefined,
  records: readonly DeliveryRecord[],
  nowMs: number,
): SubscriptionHealth {
  const deliveries = records.map((record) => record.delivery);
  const attempts = records.flatMap((record) => record.attempts);
  const delivered = attempts.filter((attempt) => attempt.outcome === 'delivered').length;
  const failure = lastOf(attempts, false);
  return {
    subscriptionId,
    attempts: attempts.length,
    successRate: attempts.length === 0 ? null : delivered / attempts.length,
    lastSuccessAt: iso(lastOf(attempts, true)?.at),
    lastFailureAt: iso(failure?.at),
    lastFailure: failure ? describeFailure(failure) : null,
    pausedUntil:
      endpoint?.pausedUntil !== undefined && endpoint.pausedUntil > nowMs
        ? iso(endpoint.pausedUntil)
        : null,
    consecutiveFailures: endpoint?.consecutiveFailures ?? 0,
    failingSince: iso(endpoint?.failingSince),
    pending: deliveries.filter((delivery) => delivery.status === 'pending').length,
    dead: deliveries.filter((delivery) => delivery.status === 'dead').length,
  };
}

/**
 * The health of the subscriptions `ids` (known to exist), in their order: their endpoint states
 * and their newest {@link HEALTH_SAMPLE_DELIVERIES} deliveries read together,
 * {@link HEALTH_READ_CHUNK} subscriptions at a time (the store's batch reads: the requests grow
 * with the subscriptions by one list read each, not by a few, nor with their deliveries).
 */
export async function readSubscriptionsHealth(
  ids: readonly string[],
  deps: {
    store: Pick<WebhookStore, 'getEndpointStates' | 'listDeliveryRecordsBySubscription'>;
    clock: { now(): number };
  },
): Promise<SubscriptionHealth[]> {
  const health: SubscriptionHealth[] = [];
  for (let start = 0; start < ids.length; start += HEALTH_READ_CHUNK) {
    const chunk = ids.slice(start, start + HEALTH_READ_CHUNK);
    const [endpoints, records] = await Promise.all([
      deps.store.getEndpointStates(chunk),
      deps.store.listDeliveryRecordsBySubscription(chunk, HEALTH_SAMPLE_DELIVERIES),
    ]);
    const now = deps.clock.now();
    for (const id of chunk) {
      health.push(summarizeHealth(id, endpoints.get(id), records.get(id) ?? [], now));
    }
  }
  return health;
}
