import type { Attempt, Delivery, EndpointState, StoredEvent, WebhookStore } from './store.ts';
import type { Subscription } from './subscription.ts';

/** The in-memory {@link WebhookStore}, for tests and the one-process runtime. Copies on the way in and out. */
export class MemoryWebhookStore implements WebhookStore {
  private readonly subscriptions = new Map<string, Subscription>();
  private readonly events = new Map<string, StoredEvent>();
  private readonly deliveries = new Map<string, Delivery>();
  private readonly attempts = new Map<string, Attempt[]>();
  private readonly deadLetters = new Map<string, Map<string, number>>();
  private readonly endpoints = new Map<string, EndpointState>();

  async putSubscription(subscription: Subscription): Promise<void> {
    this.subscriptions.set(subscription.id, structuredClone(subscription));
  }

  async getSubscription(id: string): Promise<Subscription | undefined> {
    return copy(this.subscriptions.get(id));
  }

  async listSubscriptions(): Promise<Subscription[]> {
    return [...this.subscriptions.values()].map((s) => structuredClone(s));
  }

  async deleteSubscription(id: string): Promise<void> {
    this.subscriptions.delete(id);
  }

  async putEvent(event: StoredEvent): Promise<void> {
    if (!this.events.has(event.id)) this.events.set(event.id, { ...event });
  }

  async getEvent(id: string): Promise<StoredEvent | undefined> {
    return copy(this.events.get(id));
  }

  async listEvents(query: { type?: string; limit: number }): Promise<StoredEvent[]> {
    return [...this.events.values()]
      .filter((event) => query.type === undefined || event.type === query.type)
      .sort((a, b) => b.storedAt - a.storedAt || (a.id < b.id ? 1 : -1))
      .slice(0, query.limit)
      .map((event) => ({ ...event }));
  }

  async createDelivery(delivery: Delivery): Promise<boolean> {
    if (this.deliveries.has(delivery.id)) return false;
    this.deliveries.set(delivery.id, { ...delivery });
    return true;
  }

  async getDelivery(id: string): Promise<Delivery | undefined> {
    return copy(this.deliveries.get(id));
  }

  async updateDelivery(delivery: Delivery): Promise<boolean> {
    const stored = this.deliveries.get(delivery.id);
    if (!stored || stored.version !== delivery.version - 1) return false;
    this.deliveries.set(delivery.id, { ...delivery });
    return true;
  }

  async listDeliveries(query: {
    subscriptionId?: string;
    eventId?: string;
    limit: number;
  }): Promise<Delivery[]> {
    return [...this.deliveries.values()]
      .filter(
        (d) =>
          (query.subscriptionId === undefined || d.subscriptionId === query.subscriptionId) &&
          (query.eventId === undefined || d.eventId === query.eventId),
      )
      .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1))
      .slice(0, query.limit)
      .map((d) => ({ ...d }));
  }

  async putAttempt(attempt: Attempt): Promise<void> {
    const list = this.attempts.get(attempt.deliveryId) ?? [];
    this.attempts.set(attempt.deliveryId, [
      ...list.filter((a) => a.attempt !== attempt.attempt),
      structuredClone(attempt),
    ]);
  }

  async listAttempts(deliveryId: string): Promise<Attempt[]> {
    return (this.attempts.get(deliveryId) ?? [])
      .map((a) => structuredClone(a))
      .sort((a, b) => a.attempt - b.attempt);
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

  async putEndpointState(state: EndpointState): Promise<void> {
    this.endpoints.set(state.subscriptionId, { ...state });
  }
}

function copy<T>(value: T | undefined): T | undefined {
  return value === undefined ? undefined : structuredClone(value);
}
