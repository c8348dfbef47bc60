import { z } from 'zod';
import type { Subscription } from './subscription.ts';

/** An event kept for delivery, listing and replay: the exact body bytes plus a summary. */
export const StoredEventSchema = z.object({
  id: z.string(),
  type: z.string(),
  /** Epoch ms when first stored; orders the event list. */
  storedAt: z.number(),
  /** The JSON body exactly as received (and as POSTed). */
  body: z.string(),
});

/** A stored event (see {@link StoredEventSchema}). */
export type StoredEvent = z.infer<typeof StoredEventSchema>;

/** Where a delivery stands. `dead`: dead-lettered, kept for replay. */
export const DeliveryStatusSchema = z.enum(['pending', 'delivered', 'dead']);

/** One event on its way to one subscription. */
export const DeliverySchema = z.object({
  id: z.string(),
  eventId: z.string(),
  subscriptionId: z.string(),
  status: DeliveryStatusSchema,
  /** Attempts made (requests sent or refused); deferrals for a paused endpoint do not count. */
  attempts: z.number().int().nonnegative(),
  /** Epoch ms of the next attempt while pending. */
  nextAttemptAt: z.number(),
  createdAt: z.number(),
  updatedAt: z.number(),
  /** Bumped on every update; updates are conditional on it, so duplicate messages cannot fork a retry chain. */
  version: z.number().int(),
  lastStatus: z.number().optional(),
  lastError: z.string().optional(),
  deadReason: z.string().optional(),
  /** Epoch ms it was dead-lettered. */
  deadAt: z.number().optional(),
});

/** A delivery (see {@link DeliverySchema}). */
export type Delivery = z.infer<typeof DeliverySchema>;

/** One line of the attempt log. */
export const AttemptSchema = z.object({
  deliveryId: z.string(),
  attempt: z.number().int().positive(),
  /** Epoch ms the request started. */
  at: z.number(),
  /** HTTP status, absent when no response came (timeout, network error, refused address). */
  status: z.number().optional(),
  error: z.string().optional(),
  latencyMs: z.number(),
  responseHeaders: z.record(z.string(), z.string()),
  /** First 4 KB of the response body. */
  responseBody: z.string(),
  outcome: z.enum(['delivered', 'retry', 'gone', 'rejected']),
  /** Epoch ms of the next attempt, when one is scheduled. */
  nextAttemptAt: z.number().optional(),
});

/** An attempt log line (see {@link AttemptSchema}). */
export type Attempt = z.infer<typeof AttemptSchema>;

/** Health of one subscription's endpoint: its pause and its run of failures. */
export const EndpointStateSchema = z.object({
  subscriptionId: z.string(),
  /** Epoch ms until which no request may go to the endpoint (from `Retry-After`). */
  pausedUntil: z.number().optional(),
  consecutiveFailures: z.number().int().nonnegative(),
  /** Epoch ms of the first failure since the last success. */
  failingSince: z.number().optional(),
  /** `delivery.failing` was published for the current run of failures. */
  failingNotified: z.boolean(),
});

/** Endpoint health (see {@link EndpointStateSchema}). */
export type EndpointState = z.infer<typeof EndpointStateSchema>;

/** A healthy endpoint with no history. */
export function freshEndpointState(subscriptionId: string): EndpointState {
  return { subscriptionId, consecutiveFailures: 0, failingNotified: false };
}

/** Most attempts folded into a delivery's own item (older ones drop off); the default schedule makes 8. */
export const ATTEMPT_LOG_MAX_ENTRIES = 8;

/** A delivery with the attempt log folded into its item. */
export interface DeliveryRecord {
  delivery: Delivery;
  /** The folded log, oldest first (at most {@link ATTEMPT_LOG_MAX_ENTRIES}). */
  attempts: Attempt[];
}

/** Options of {@link WebhookStore.putEvent}. */
export interface PutEventOptions {
  /**
   * Ids of the deliveries the event fans out to, kept on the event's own item, so they list
   * under the event without an index write each (see {@link CreateDeliveryOptions.deferListing}).
   */
  fanOutDeliveryIds?: readonly string[];
  /** Keep the event out of `listEvents` until {@link WebhookStore.indexEvents} lists it. */
  deferListing?: boolean;
}

/** Options of {@link WebhookStore.createDelivery}. */
export interface CreateDeliveryOptions {
  /** The attempt log so far, stored in the delivery's own item (one write for both). */
  attempts?: readonly Attempt[];
  /**
   * Write the delivery item only: its event already names it (`fanOutDeliveryIds`) and the
   * caller lists it under its subscription with {@link WebhookStore.indexDeliveries}.
   */
  deferListing?: boolean;
}

/**
 * Storage of the dispatcher: subscriptions, events, deliveries, attempts, dead letters and
 * endpoint state. Implementations: {@link DynamoDbWebhookStore}, {@link MemoryWebhookStore};
 * one contract suite (test/webhooks/store-contract) runs against both. Lists are newest first.
 */
export interface WebhookStore {
  putSubscription(subscription: Subscription): Promise<void>;
  getSubscription(id: string): Promise<Subscription | undefined>;
  listSubscriptions(): Promise<Subscription[]>;
  deleteSubscription(id: string): Promise<void>;
  /** Stores an event once; a second put of the same id keeps the first. Returns whether this put stored it. */
  putEvent(event: StoredEvent, options?: PutEventOptions): Promise<boolean>;
  /**
   * Lists events (stored with `deferListing`) in `listEvents`, all in one write. Listing an
   * event twice is harmless: lists show each event once.
   */
  indexEvents(events: readonly StoredEvent[]): Promise<void>;
  getEvent(id: string): Promise<StoredEvent | undefined>;
  listEvents(query: { type?: string; limit: number }): Promise<StoredEvent[]>;
  /**
   * Stores the events of one batch in as few writes as the store allows (25 per request in
   * DynamoDB), each with its options; returns the ids that were new. An event stored before is
   * left as it was. Two batches storing one new event at the same moment may both see it as
   * new (the dispatcher is at-least-once; receivers deduplicate on the webhook-id).
   */
  putEvents(
    entries: readonly { event: StoredEvent; options?: PutEventOptions }[],
  ): Promise<Set<string>>;
  /** Creates a delivery unless one with its id exists; returns whether it did. */
  createDelivery(delivery: Delivery, options?: CreateDeliveryOptions): Promise<boolean>;
  /**
   * Writes the new deliveries of one batch (their first attempt folded in) in as few writes as
   * the store allows; unconditional, for deliveries this batch planned as new.
   */
  createDeliveries(
    entries: readonly { delivery: Delivery; options?: CreateDeliveryOptions }[],
  ): Promise<void>;
  /**
   * Lists deliveries (created with `deferListing`, or about to be) under their subscriptions,
   * one write per subscription. Listing an id before its delivery exists is harmless: lists
   * show only deliveries that exist, each once.
   */
  indexDeliveries(deliveries: readonly Delivery[]): Promise<void>;
  getDelivery(id: string): Promise<Delivery | undefined>;
  /** A delivery with its folded attempt log (strongly consistent: retries update from it). */
  getDeliveryRecord(id: string): Promise<DeliveryRecord | undefined>;
  /**
   * Replaces a delivery if its stored version is `delivery.version - 1`; returns whether it did.
   * With `attempts`, the folded attempt log is replaced in the same write; without, it is kept.
   */
  updateDelivery(delivery: Delivery, attempts?: readonly Attempt[]): Promise<boolean>;
  listDeliveries(query: {
    subscriptionId?: string;
    eventId?: string;
    limit: number;
  }): Promise<Delivery[]>;
  /** Adds one line to a delivery's attempt log as an item of its own (the dispatcher folds attempts instead). */
  putAttempt(attempt: Attempt): Promise<void>;
  /** The whole attempt log of a delivery, folded and separate lines alike, by attempt number. */
  listAttempts(deliveryId: string): Promise<Attempt[]>;
  /** Lists a dead-lettered delivery (its `deadAt` set) under its subscription. */
  addDeadLetter(delivery: Delivery): Promise<void>;
  /** Ids of dead letters of a subscription since `sinceMs`, oldest first. */
  listDeadLetters(subscriptionId: string, sinceMs: number): Promise<string[]>;
  removeDeadLetter(delivery: Delivery): Promise<void>;
  getEndpointState(subscriptionId: string): Promise<EndpointState | undefined>;
  putEndpointState(state: EndpointState): Promise<void>;
}

/**
 * Appends an attempt to a folded log, keeping the newest {@link ATTEMPT_LOG_MAX_ENTRIES}.
 * @example appendAttempt(record.attempts, attempt)
 */
export function appendAttempt(log: readonly Attempt[], attempt: Attempt): Attempt[] {
  return [...log.filter((a) => a.attempt !== attempt.attempt), attempt]
    .sort((a, b) => a.attempt - b.attempt)
    .slice(-ATTEMPT_LOG_MAX_ENTRIES);
}
