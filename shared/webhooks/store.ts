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
  /**
   * `bulk` when its event came in the bulk lane (an emitting backfill's): every message that
   * makes one of its attempts says so, whichever path writes it (a retry, a recovery, a re-send
   * of an overdue delivery), so it keeps its place behind live work at its endpoint. Absent for
   * live work and in records stored before it existed.
   */
  lane: z.literal('bulk').optional(),
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
  /**
   * `delivery.failing` was published and `delivery.recovered` not yet: it stays set over
   * successes until {@link EndpointStateSchema.shape.recoveringSuccesses} reach the threshold.
   */
  failingNotified: z.boolean(),
  /**
   * Successes in a row since the last failure while `failingNotified` (absent: none): the
   * endpoint is said to have recovered once they reach the failing threshold, so one that
   * fails 4 times for every success does not flap between `delivery.failing` and
   * `delivery.recovered`.
   */
  recoveringSuccesses: z.number().int().nonnegative().optional(),
  /** Epoch ms the run `delivery.failing` announced began (kept until `delivery.recovered`). */
  failingAnnouncedSince: z.number().optional(),
  /**
   * Counts the writes of this state (absent before the first): a write goes through only over
   * the version it was made from ({@link WebhookStore.putEndpointState}).
   */
  version: z.number().int().nonnegative().optional(),
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

/**
 * A delivery that succeeded at its first attempt, kept compactly on its event's item rather
 * than as an item of its own: the common case of a fan-out costs no write beyond the event.
 * Its one attempt keeps its time, latency and status; response headers and body are kept
 * only for attempts that failed (see {@link Attempt}).
 */
export const DeliveredAtOnceSchema = z.object({
  id: z.string(),
  subscriptionId: z.string(),
  /** Epoch ms the request started. */
  at: z.number(),
  latencyMs: z.number(),
  status: z.number().int(),
});

/** A delivery recorded compactly (see {@link DeliveredAtOnceSchema}). */
export type DeliveredAtOnce = z.infer<typeof DeliveredAtOnceSchema>;

/** A stored event with the deliveries its fan-out recorded compactly on its item. */
export interface StoredEventRecord {
  event: StoredEvent;
  deliveredAtOnce: DeliveredAtOnce[];
}

/** What the fan-out of one new event leaves in the store ({@link WebhookStore.putFanOuts}). */
export interface FanOutWrite {
  event: StoredEvent;
  /**
   * Its fan-out deliveries (ids from {@link fanOutDeliveryId}) that succeeded at their first
   * attempt: folded into the event's item.
   */
  deliveredAtOnce: readonly DeliveredAtOnce[];
  /** Its other new deliveries (a retry pending, deferred for a pause, dead): an item each. */
  others: readonly DeliveryRecord[];
}

/** Which deliveries to list: of a subscription, of an event, or both; newest first, up to `limit`. */
export interface DeliveryQuery {
  subscriptionId?: string;
  eventId?: string;
  limit: number;
}

/**
 * Where a page of the event list ended: the last event's place in the list (the time it was
 * listed, then its id; newest first). The next page starts after it.
 */
export interface EventListPosition {
  at: number;
  id: string;
}

/** What {@link WebhookStore.listEvents} reads: newest first, optionally of one type, after a position. */
export interface EventListQuery {
  type?: string;
  limit: number;
  after?: EventListPosition;
}

/** One page of the event list, and where it ended when the list may go on. */
export interface EventPage {
  events: StoredEvent[];
  next?: EventListPosition;
  /**
   * The list times (`storedAt`) of events the read passed over because they are listed and not
   * stored yet (a fan-out lists its new events before its sends and stores them after), those
   * newer than the page's last event at least; absent when there were none.
   */
  listedUnstored?: number[];
}

/** True when `position` comes after `after` in the list (older, or as old with a smaller id). */
export function isAfterPosition(position: EventListPosition, after: EventListPosition): boolean {
  return position.at < after.at || (position.at === after.at && position.id < after.id);
}

/** Options of {@link WebhookStore.putEvent}. */
export interface PutEventOptions {
  /** Keep the event out of `listEvents` until {@link WebhookStore.indexEvents} lists it. */
  deferListing?: boolean;
}

/** Options of {@link WebhookStore.createDelivery}. */
export interface CreateDeliveryOptions {
  /** The attempt log so far, stored in the delivery's own item (one write for both). */
  attempts?: readonly Attempt[];
}

/**
 * Storage of the dispatcher: subscriptions, events, deliveries, attempts, dead letters and
 * endpoint state. Implementations: {@link DynamoDbWebhookStore}, {@link MemoryWebhookStore};
 * one contract suite (test/webhooks/store-contract) runs against both. Lists are newest first.
 *
 * A fan-out delivery that succeeds at its first attempt is kept compactly on its event's item
 * ({@link DeliveredAtOnce}): the delivery lists (by event, by subscription) show it like any
 * other, but `getDelivery` and `getDeliveryRecord` find only deliveries with an item of their
 * own, which are the ones anything acts on (pending, dead, replays and redeliveries).
 */
export interface WebhookStore {
  /**
   * Stores a subscription as given, whatever is stored: for a new one. A change of a stored
   * subscription goes through {@link replaceSubscription}, so no concurrent change is lost.
   */
  putSubscription(subscription: Subscription): Promise<void>;
  /**
   * Stores `subscription` over the stored one if that is still at `ifVersion`, the version the
   * caller's copy was read at (`undefined`: one stored without a version, by a create or before
   * subscriptions had versions): of concurrent read-modify-writes (admin containers, a
   * dispatcher disabling it), none overwrites another's change. Never stores a subscription
   * that is not stored (removed meanwhile). Returns the stored subscription, its version one more
   * than `ifVersion`, or `undefined` when nothing was written (read it again and redo the
   * change: see `changeSubscription`).
   */
  replaceSubscription(
    subscription: Subscription,
    options: { ifVersion: number | undefined },
  ): Promise<Subscription | undefined>;
  getSubscription(id: string): Promise<Subscription | undefined>;
  listSubscriptions(): Promise<Subscription[]>;
  /**
   * Deletes a subscription; false when there was none (never created, or deleted already, by a
   * concurrent request say).
   */
  deleteSubscription(id: string): Promise<boolean>;
  /** Stores an event once; a second put of the same id keeps the first. Returns whether this put stored it. */
  putEvent(event: StoredEvent, options?: PutEventOptions): Promise<boolean>;
  /**
   * Lists events (stored with `deferListing`) in `listEvents`, all in one write. Listing an
   * event twice shows it once, but DynamoDB places it at its last listing (the memory store by
   * `storedAt`): list an event when it is stored, not again.
   */
  indexEvents(events: readonly StoredEvent[]): Promise<void>;
  getEvent(id: string): Promise<StoredEvent | undefined>;
  /** Listed events, newest first: a page of `limit` and, when it is full, where it ended. */
  listEvents(query: EventListQuery): Promise<EventPage>;
  /**
   * Events stored before, by id, each with the deliveries its fan-out recorded compactly
   * (eventually consistent: a repeated message is rare, and a miss only repeats a send).
   */
  getEventRecords(ids: readonly string[]): Promise<Map<string, StoredEventRecord>>;
  /**
   * Stores the new events of one batch with the outcome of their fan-out, in as few writes as
   * the store allows (25 items per BatchWrite in DynamoDB): one item per event holding its body,
   * its deliveries that succeeded at once and the ids of its other deliveries, which get an item
   * each with their attempt log. Unconditional, for events the batch found new (two batches
   * handling one new event at the same moment both write it: the dispatcher is at-least-once).
   * Events are not listed here ({@link indexEvents}); the deliveries must be listed under their
   * subscriptions ({@link indexDeliveries}) before.
   */
  putFanOuts(writes: readonly FanOutWrite[]): Promise<void>;
  /** Creates a delivery (and lists it) unless one with its id exists; returns whether it did. */
  createDelivery(delivery: Delivery, options?: CreateDeliveryOptions): Promise<boolean>;
  /**
   * Lists deliveries (of a fan-out, or about to be created) under their subscriptions, one
   * write per subscription. Listing an id before its delivery exists is harmless: lists show
   * only deliveries that exist, each once.
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
  listDeliveries(query: DeliveryQuery): Promise<Delivery[]>;
  /**
   * The pending deliveries among the newest `limit` a subscription's list names (what a restart
   * looks for: one written pending whose retry message was never sent). A delivery kept on its
   * event's item was done at once and is never pending, so those items are not read: an event
   * fanned out to thousands of subscriptions is not expanded again for each of them.
   */
  listPendingDeliveries(subscriptionId: string, limit: number): Promise<Delivery[]>;
  /**
   * {@link listDeliveries} with each delivery's attempt log: the log folded into its record, or
   * where the record holds none (created without attempts and not attempted since) its attempt
   * lines ({@link listAttempts}); a delivery kept compactly has its one attempt.
   */
  listDeliveryRecords(query: DeliveryQuery): Promise<DeliveryRecord[]>;
  /**
   * The newest `limit` delivery records of each subscription, as {@link listDeliveryRecords}
   * answers for one, read together (in DynamoDB one Query of each subscription's list and shared
   * batch reads of the records, not a few requests per subscription); by subscription id, every
   * id given present.
   */
  listDeliveryRecordsBySubscription(
    subscriptionIds: readonly string[],
    limit: number,
  ): Promise<Map<string, DeliveryRecord[]>>;
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
  /**
   * The endpoint states of many subscriptions by subscription id, none for those without one:
   * read together (in DynamoDB 100 a request, eventually consistent), for display.
   */
  getEndpointStates(subscriptionIds: readonly string[]): Promise<Map<string, EndpointState>>;
  /**
   * Stores `state` as the endpoint's state if the stored one is still at `ifVersion`, the
   * version the caller's state was made from (`undefined`: none stored, or one stored before
   * states had versions): concurrent writers (deliveries of one batch, other batches, other
   * containers) never overwrite each other's changes. Returns the stored state, its version one
   * more than `ifVersion`, or `undefined` when the stored version differs (nothing written:
   * read it and fold again, see `foldEndpointState`).
   */
  putEndpointState(
    state: EndpointState,
    options: { ifVersion: number | undefined },
  ): Promise<EndpointState | undefined>;
}

/**
 * Appends an attempt to a folded log, keeping the newest {@link ATTEMPT_LOG_MAX_ENTRIES}.
 * @example appendAttempt(record.attempts, attempt)
 */
export function appendAttempt(log: readonly Attempt[], attempt: Attempt): Attempt[] {
  // The common case, the next attempt after those logged (a delivery's first: none), needs no sort.
  const last = log.at(-1);
  if (
    log.length < ATTEMPT_LOG_MAX_ENTRIES &&
    (last === undefined || last.attempt < attempt.attempt)
  )
    return [...log, attempt];
  return [...log.filter((a) => a.attempt !== attempt.attempt), attempt]
    .sort((a, b) => a.attempt - b.attempt)
    .slice(-ATTEMPT_LOG_MAX_ENTRIES);
}
