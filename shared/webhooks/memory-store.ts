import { expandDeliveredAtOnce } from './delivered-at-once.ts';
import {
  type Attempt,
  type CreateDeliveryOptions,
  type DeliveredAtOnce,
  type Delivery,
  type DeliveryQuery,
  type DeliveryRecord,
  type EndpointState,
  type EventListQuery,
  type EventPage,
  type FanOutWrite,
  isAfterPosition,
  type PutEventOptions,
  type StoredEvent,
  type StoredEventRecord,
  type WebhookStore,
} from './store.ts';
import type { Subscription } from './subscription.ts';

/** The in-memory {@link WebhookStore}, for tests and the one-process runtime. Copies on the way in and out. */
export class MemoryWebhookStore implements WebhookStore {
  private readonly subscriptions = new Map<string, Subscription>();
  private readonly events = new Map<string, StoredEvent>();
  /** Listed events by id, with their list time and type (listed before stored, by a fan-out). */
  private readonly listedEvents = new Map<string, { at: number; type: string }>();
  private readonly deliveries = new Map<string, Delivery>();
  /** Deliveries kept compactly, by event (as on the event's item in DynamoDB). */
  private readonly deliveredAtOnce = new Map<string, DeliveredAtOnce[]>();
  private readonly foldedAttempts = new Map<string, Attempt[]>();
  private readonly attemptLines = new Map<string, Attempt[]>();
  private readonly deadLetters = new Map<string, Map<string, number>>();
  private readonly endpoints = new Map<string, EndpointState>();

  async putSubscription(subscription: Subscription): Promise<void> {
    this.subscriptions.set(subscription.id, structuredClone(subscription));
  }

  async replaceSubscription(
    subscription: Subscription,
    options: { ifVersion: number | undefined },
  ): Promise<Subscription | undefined> {
    const stored = this.subscriptions.get(subscription.id);
    if (stored === undefined || stored.version !== options.ifVersion) return undefined;
    const next = { ...structuredClone(subscription), version: (options.ifVersion ?? 0) + 1 };
    this.subscriptions.set(subscription.id, next);
    return structuredClone(next);
  }

  async getSubscription(id: string): Promise<Subscription | undefined> {
    return copy(this.subscriptions.get(id));
  }

  async listSubscriptions(): Promise<Subscription[]> {
    return [...this.subscriptions.values()].map((s) => structuredClone(s));
  }

  async deleteSubscription(id: string): Promise<boolean> {
    return this.subscriptions.delete(id);
  }

  async putEvent(event: StoredEvent, options: PutEventOptions = {}): Promise<boolean> {
    if (this.events.has(event.id)) return false;
    this.events.set(event.id, { ...event });
    if (!options.deferListing)
      this.listedEvents.set(event.id, { at: event.storedAt, type: event.type });
    return true;
  }

  async getEventRecords(ids: readonly string[]): Promise<Map<string, StoredEventRecord>> {
    const records = new Map<string, StoredEventRecord>();
    for (const id of ids) {
      const event = this.events.get(id);
      if (!event) continue;
      const deliveredAtOnce = (this.deliveredAtOnce.get(id) ?? []).map((d) => ({ ...d }));
      records.set(id, { event: { ...event }, deliveredAtOnce });
    }
    return records;
  }

  async putFanOuts(writes: readonly FanOutWrite[]): Promise<void> {
    for (const { event, deliveredAtOnce, others } of writes) {
      this.events.set(event.id, { ...event });
      this.deliveredAtOnce.set(
        event.id,
        deliveredAtOnce.map((d) => ({ ...d })),
      );
      for (const { delivery, attempts } of others) {
        this.deliveries.set(delivery.id, { ...delivery });
        this.foldedAttempts.set(delivery.id, attempts.map(copyAttempt));
      }
    }
  }

  async indexEvents(events: readonly StoredEvent[]): Promise<void> {
    for (const event of events)
      this.listedEvents.set(event.id, { at: event.storedAt, type: event.type });
  }

  async getEvent(id: string): Promise<StoredEvent | undefined> {
    return copy(this.events.get(id));
  }

  async listEvents(query: EventListQuery): Promise<EventPage> {
    const { after } = query;
    const events = [...this.events.values()]
      .filter((event) => this.listedEvents.has(event.id))
      .filter((event) => query.type === undefined || event.type === query.type)
      .filter((e) => !after || isAfterPosition({ at: e.storedAt, id: e.id }, after))
      .sort((a, b) => b.storedAt - a.storedAt || (a.id < b.id ? 1 : -1))
      .slice(0, query.limit)
      .map((event) => ({ ...event }));
    const last = events.at(-1);
    const full = last !== undefined && events.length === query.limit;
    const listedUnstored = [...this.listedEvents]
      .filter(([id]) => !this.events.has(id))
      .filter(([, listed]) => query.type === undefined || listed.type === query.type)
      .filter(([id, listed]) => !after || isAfterPosition({ at: listed.at, id }, after))
      .filter(([, listed]) => !full || listed.at >= last.storedAt)
      .map(([, listed]) => listed.at);
    return {
      events,
      ...(full ? { next: { at: last.storedAt, id: last.id } } : {}),
      ...(listedUnstored.length > 0 ? { listedUnstored } : {}),
    };
  }

  async createDelivery(delivery: Delivery, options: CreateDeliveryOptions = {}): Promise<boolean> {
    if (this.deliveries.has(delivery.id)) return false;
    this.deliveries.set(delivery.id, { ...delivery });
    if (options.attempts) this.foldedAttempts.set(delivery.id, options.attempts.map(copyAttempt));
    return true;
  }

  // Every delivery lists by subscription and event here: indexing has nothing left to do.
  async indexDeliveries(_deliveries: readonly Delivery[]): Promise<void> {}

  async getDelivery(id: string): Promise<Delivery | undefined> {
    return copy(this.deliveries.get(id));
  }

  async getDeliveryRecord(id: string): Promise<DeliveryRecord | undefined> {
    const delivery = this.deliveries.get(id);
    if (!delivery) return undefined;
    return {
      delivery: { ...delivery },
      attempts: (this.foldedAttempts.get(id) ?? []).map(copyAttempt),
    };
  }

  async updateDelivery(delivery: Delivery, attempts?: readonly Attempt[]): Promise<boolean> {
    const stored = this.deliveries.get(delivery.id);
    if (!stored || stored.version !== delivery.version - 1) return false;
    this.deliveries.set(delivery.id, { ...delivery });
    if (attempts) this.foldedAttempts.set(delivery.id, attempts.map(copyAttempt));
    return true;
  }

  async listDeliveries(query: DeliveryQuery): Promise<Delivery[]> {
    return (await this.listDeliveryRecords(query)).map((record) => record.delivery);
  }

  async listPendingDeliveries(subscriptionId: string, limit: number): Promise<Delivery[]> {
    return (await this.listDeliveries({ subscriptionId, limit })).filter(
      (delivery) => delivery.status === 'pending',
    );
  }

  async listDeliveryRecords(query: DeliveryQuery): Promise<DeliveryRecord[]> {
    const own = await Promise.all(
      [...this.deliveries.values()].map(async (delivery) => ({
        delivery: { ...delivery },
        // Its attempt lines only where no log is folded into it (the DynamoDB store's reads).
        attempts:
          this.foldedAttempts.get(delivery.id)?.map(copyAttempt) ??
          (await this.listAttempts(delivery.id)),
      })),
    );
    const atOnce = [...this.deliveredAtOnce].flatMap(([eventId, entries]) => {
      const storedAt = this.events.get(eventId)?.storedAt ?? 0;
      return entries.map((entry) => expandDeliveredAtOnce(eventId, storedAt, entry));
    });
    return [...own, ...atOnce]
      .filter(
        ({ delivery: d }) =>
          (query.subscriptionId === undefined || d.subscriptionId === query.subscriptionId) &&
          (query.eventId === undefined || d.eventId === query.eventId),
      )
      .sort(
        (a, b) =>
          b.delivery.createdAt - a.delivery.createdAt || (a.delivery.id < b.delivery.id ? 1 : -1),
      )
      .slice(0, query.limit);
  }

  async listDeliveryRecordsBySubscription(
    subscriptionIds: readonly string[],
    limit: number,
  ): Promise<Map<string, DeliveryRecord[]>> {
    const records = new Map<string, DeliveryRecord[]>();
    for (const subscriptionId of subscriptionIds) {
      records.set(subscriptionId, await this.listDeliveryRecords({ subscriptionId, limit }));
    }
    return records;
  }

  async putAttempt(attempt: Attempt): Promise<void> {
    const list = this.attemptLines.get(attempt.deliveryId) ?? [];
    this.attemptLines.set(attempt.deliveryId, [
      ...list.filter((a) => a.attempt !== attempt.attempt),
      copyAttempt(attempt),
    ]);
  }

  async listAttempts(deliveryId: string): Promise<Attempt[]> {
    const byNumber = new Map<number, Attempt>();
    for (const attempt of this.attemptLines.get(deliveryId) ?? [])
      byNumber.set(attempt.attempt, attempt);
    for (const attempt of this.foldedAttempts.get(deliveryId) ?? [])
      byNumber.set(attempt.attempt, attempt);
    return [...byNumber.values()].map(copyAttempt).sort((a, b) => a.attempt - b.attempt);
  }

  async addDeadLetter(delivery: Delivery): Promise<void> {
    const forSubscription = this.deadLetters.get(delivery.subscriptionId) ?? new Map();
    forSubscription.set(delivery.id, delivery.deadAt ?? delivery.updatedAt);
    this.deadLetters.set(delivery.subscriptionId, forSubscription);
  }

  async listDeadLetters(subscriptionId: string, sinceMs: number): Promise<string[]> {
    return [...(this.deadLetters.get(subscriptionId) ?? new Map<string, number>()).entries()]
      .filter(([, deadAt]) => deadAt >= sinceMs)
      .sort(([a, at], [b, bt]) => at - bt || (a < b ? -1 : 1))
      .map(([id]) => id);
  }

  async removeDeadLetter(delivery: Delivery): Promise<void> {
    this.deadLetters.get(delivery.subscriptionId)?.delete(delivery.id);
  }

  async getEndpointState(subscriptionId: string): Promise<EndpointState | undefined> {
    return copy(this.endpoints.get(subscriptionId));
  }

  async getEndpointStates(subscriptionIds: readonly string[]): Promise<Map<string, EndpointState>> {
    return new Map(
      subscriptionIds.flatMap((id) => {
        const state = this.endpoints.get(id);
        return state ? [[id, { ...state }] as const] : [];
      }),
    );
  }

  async putEndpointState(
    state: EndpointState,
    options: { ifVersion: number | undefined },
  ): Promise<EndpointState | undefined> {
    if (this.endpoints.get(state.subscriptionId)?.version !== options.ifVersion) return undefined;
    const stored = { ...state, version: (options.ifVersion ?? 0) + 1 };
    this.endpoints.set(state.subscriptionId, stored);
    return { ...stored };
  }
}

/** A copy of an attempt (its only nested value is the header map); cheaper than structuredClone on the hot path. */
function copyAttempt(attempt: Attempt): Attempt {
  return { ...attempt, responseHeaders: { ...attempt.responseHeaders } };
}

function copy<T>(value: T | undefined): T | undefined {
  return value === undefined ? undefined : structuredClone(value);
}
