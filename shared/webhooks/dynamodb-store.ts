import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Clock } from '../clock.ts';
import { parseOrThrow } from '../errors.ts';
import { fanOutDeliveryId } from './delivered-at-once.ts';
import {
  attemptLogOf,
  attemptsOfDeliveryItems,
  bySubscription,
  eventItem,
  toStoredEvent,
  toStoredEventRecord,
} from './dynamodb-items.ts';
import {
  chunk,
  collectListed,
  findDeliveries,
  listSortKey,
  newestFirst,
} from './dynamodb-lists.ts';
import { isConditionFailure, iso, WebhookTable } from './dynamodb-table-access.ts';
import {
  type Attempt,
  type CreateDeliveryOptions,
  type Delivery,
  type DeliveryQuery,
  type DeliveryRecord,
  DeliverySchema,
  type EndpointState,
  EndpointStateSchema,
  type EventListPosition,
  type EventListQuery,
  type EventPage,
  type FanOutWrite,
  type PutEventOptions,
  type StoredEvent,
  type StoredEventRecord,
  type WebhookStore,
} from './store.ts';
import { type Subscription, SubscriptionSchema } from './subscription.ts';

/** How long events, deliveries, attempts and dead letters are kept: 30 days. */
export const WEBHOOK_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** The partition key of every subscription item (their signing secrets included): infra denies it to the planner and poller. */
export const SUBSCRIPTIONS_PARTITION = 'SUBS';

/*
 * Key design in the shared single table (pk/sk strings, TTL attribute `ttl` in epoch
 * seconds; the state store owns `STREAM#…` and `STREAMS`). Records sit in a `doc` map,
 * parsed with the record's schema on the way out. Sizes matter: a write unit is 1 KB, so an
 * event delivered at its first attempt costs one event item (its deliveries folded in) and a
 * share of two list items: about 1.1 WRU.
 *   SUBS              SUB#<subId>                  subscription (secrets included), no TTL
 *   EVENT#<eventId>   EVENT                        stored event, written once after its fan-out's
 *                                                  first attempts: summary in `doc`, the exact
 *                                                  body compressed in `body`, its fan-out
 *                                                  deliveries that succeeded at once in `ok`
 *                                                  (`[id, subId, at, latencyMs, status]`, no item
 *                                                  of their own), ids of the others in `dlv`;
 *                                                  its `ttl` moved on to that of a later
 *                                                  delivery or dead letter of it
 *   EVENT#<eventId>   DLV#<deliveryId>             index: other deliveries of the event (replays)
 *   EVENTS            <ISO time>#<eventId>         list: events newest first, `entries` of many
 *                                                  events per item (one write per batch; one
 *                                                  partition: ~1,000 writes/s is ample)
 *   DELIVERY#<id>     DELIVERY                     delivery not delivered at once (a retry,
 *                                                  a deferral, a dead letter, a replay),
 *                                                  conditional on `version`, with its recent
 *                                                  attempts folded into `log`
 *   DELIVERY#<id>     ATTEMPT#<nnnn>               attempt log lines written on their own
 *   SUB#<subId>       DLV#<ISO time>#<id>          list: deliveries of a subscription, `ids` of
 *                                                  many per item with their `events` (or the one
 *                                                  id in the key)
 *   DLQ#<subId>       <deadAt ISO>#<deliveryId>    dead letters by time, for redelivery
 *   ENDPOINT#<subId>  STATE                        pause and failure run of the endpoint
 *   DELIVERED#<streamId> AT#<epoch ms>             the stream's events detected at that instant:
 *                                                  fanned out, deliveries made, delivered, dead-
 *                                                  lettered; grown with ADD once per batch
 *                                                  (DynamoDbDeliveryCounter)
 */

/** Options of {@link DynamoDbWebhookStore}. */
export interface DynamoDbWebhookStoreOptions {
  /** A low-level client; the store wraps it in a DocumentClient that drops undefined values. */
  client: DynamoDBClient;
  tableName: string;
  clock: Clock;
  retentionMs?: number;
}

/**
 * The most event list entries one round of {@link DynamoDbWebhookStore.listEvents} reads: a
 * round after events passed over (listed, not stored yet) reads as many more as were passed.
 */
const LIST_ROUND_MAX_ENTRIES = 1000;

/** The DynamoDB {@link WebhookStore} (AWS and dynalite alike), on the key design above. */
export class DynamoDbWebhookStore implements WebhookStore {
  private readonly table: WebhookTable;

  constructor(private readonly options: DynamoDbWebhookStoreOptions) {
    this.table = WebhookTable.on(options.client, options.tableName);
  }

  private ttl(): number {
    const retention = this.options.retentionMs ?? WEBHOOK_RETENTION_MS;
    return Math.floor((this.options.clock.now() + retention) / 1000);
  }

  async putSubscription(subscription: Subscription): Promise<void> {
    await this.table.put({
      pk: SUBSCRIPTIONS_PARTITION,
      sk: `SUB#${subscription.id}`,
      doc: subscription,
    });
  }

  getSubscription(id: string): Promise<Subscription | undefined> {
    return this.table.getDoc(
      SUBSCRIPTIONS_PARTITION,
      `SUB#${id}`,
      SubscriptionSchema,
      'stored subscription',
    );
  }

  async listSubscriptions(): Promise<Subscription[]> {
    const items = await this.table.query(SUBSCRIPTIONS_PARTITION, { prefix: 'SUB#' });
    return items.map((item) => parseOrThrow(SubscriptionSchema, item.doc, 'stored subscription'));
  }

  async deleteSubscription(id: string): Promise<void> {
    await this.table.delete(SUBSCRIPTIONS_PARTITION, `SUB#${id}`);
  }

  async putEvent(event: StoredEvent, options: PutEventOptions = {}): Promise<boolean> {
    if (!(await this.table.tryPut(eventItem(event, {}, this.ttl()), 'attribute_not_exists(pk)')))
      return false;
    if (!options.deferListing) await this.indexEvents([event]);
    return true;
  }

  async getEventRecords(ids: readonly string[]): Promise<Map<string, StoredEventRecord>> {
    const items = await this.table.batchGetItems(
      ids.map((id) => ({ pk: `EVENT#${id}`, sk: 'EVENT' })),
    );
    const records = items.map(toStoredEventRecord);
    return new Map(records.map((record) => [record.event.id, record]));
  }

  async putFanOuts(writes: readonly FanOutWrite[]): Promise<void> {
    const ttl = this.ttl();
    await this.table.batchPut(
      writes.flatMap(({ event, deliveredAtOnce, others }) => [
        eventItem(event, { deliveredAtOnce, deliveryIds: others.map((o) => o.delivery.id) }, ttl),
        ...others.map((other) => this.deliveryItem(other.delivery, { attempts: other.attempts })),
      ]),
    );
  }

  private deliveryItem(delivery: Delivery, options: CreateDeliveryOptions) {
    return {
      pk: `DELIVERY#${delivery.id}`,
      sk: 'DELIVERY',
      version: delivery.version,
      doc: delivery,
      log: options.attempts ? [...options.attempts] : undefined,
      ttl: this.ttl(),
    };
  }

  async indexEvents(events: readonly StoredEvent[]): Promise<void> {
    await Promise.all(
      chunk(events).map((part) =>
        this.table.put({
          pk: 'EVENTS',
          sk: listSortKey('', Math.max(...part.map((e) => e.storedAt)), part[0]!.id),
          entries: part.map((e) => ({ id: e.id, type: e.type, at: e.storedAt })),
          ttl: this.ttl(),
        }),
      ),
    );
  }

  async getEvent(id: string): Promise<StoredEvent | undefined> {
    const item = await this.table.getItem(`EVENT#${id}`, 'EVENT');
    return item ? toStoredEvent(item) : undefined;
  }

  async listEvents(query: EventListQuery): Promise<EventPage> {
    const events: StoredEvent[] = [];
    const listedUnstored: number[] = [];
    /** Ids the page took or passed over: an id listed twice counts once (collectListed's rule). */
    const seen = new Set<string>();
    const page = (next?: EventListPosition): EventPage => ({
      events,
      ...(next ? { next } : {}),
      ...(listedUnstored.length > 0 ? { listedUnstored } : {}),
    });
    let after = query.after;
    // A fan-out lists its new events before it stores them (after its sends), so a listed event
    // may not be readable yet: it is passed over and the page filled from older entries, as the
    // memory store's list of stored events does (before, such a page came back short, even
    // empty with a cursor). A round reads the entries the page still lacks plus as many as were
    // passed over so far, so a run of such events (a fan-out lists hundreds) costs a few rounds,
    // not a Query and a BatchGetItem each; entries read past the page's last event are left to
    // the next page, whose cursor is that event.
    for (;;) {
      const wanted = query.limit - events.length;
      const asked = Math.max(
        wanted,
        Math.min(wanted + listedUnstored.length, LIST_ROUND_MAX_ENTRIES),
      );
      const listed = await collectListed(
        this.table,
        { pk: 'EVENTS', kind: 'events' },
        { limit: asked, type: query.type, ...(after ? { after } : {}) },
      );
      const items = await this.table.batchGetItems(
        listed.map(({ id }) => ({ pk: `EVENT#${id}`, sk: 'EVENT' })),
      );
      const read = new Map(items.map(toStoredEvent).map((event) => [event.id, event]));
      for (const entry of listed) {
        // Listed again further down (two batches fanned it out at once): read in an earlier round.
        if (seen.has(entry.id)) continue;
        seen.add(entry.id);
        const event = read.get(entry.id);
        if (!event) {
          if (entry.at !== undefined) listedUnstored.push(entry.at);
          continue;
        }
        events.push(event);
        if (events.length === query.limit) {
          // Items written before entries carried their time predate positions: no page follows.
          return page(entry.at === undefined ? undefined : { at: entry.at, id: entry.id });
        }
      }
      const last = listed.at(-1);
      // The list ends here (or its items predate positions): no page follows.
      if (last?.at === undefined || listed.length < asked) return page();
      after = { at: last.at, id: last.id };
    }
  }

  async createDelivery(delivery: Delivery, options: CreateDeliveryOptions = {}): Promise<boolean> {
    const created = await this.table.tryPut(
      this.deliveryItem(delivery, options),
      'attribute_not_exists(pk)',
    );
    if (!created) return false;
    const ttl = this.ttl();
    await Promise.all([
      this.table.put({ pk: `EVENT#${delivery.eventId}`, sk: `DLV#${delivery.id}`, ttl }),
      this.indexDeliveries([delivery]),
      // A replay or a redelivery of an old event: its attempts need the body as long as it lives.
      this.keepEventUntil(delivery.eventId, ttl),
    ]);
    return true;
  }

  async indexDeliveries(deliveries: readonly Delivery[]): Promise<void> {
    await Promise.all(
      [...bySubscription(deliveries)].flatMap(([subscriptionId, own]) =>
        chunk(own).map((part) => {
          // A fan-out delivery is listed by its event (its id follows from the event and the
          // subscription, and the event's item is where a delivery kept compactly is read).
          const fanOut = part.filter((d) => d.id === fanOutDeliveryId(d.eventId, subscriptionId));
          const others = part.filter((d) => !fanOut.includes(d));
          return this.table.put({
            pk: `SUB#${subscriptionId}`,
            sk: listSortKey('DLV#', Math.max(...part.map((d) => d.createdAt)), part[0]!.id),
            ids: others.length > 0 ? others.map((d) => d.id) : undefined,
            events: fanOut.length > 0 ? fanOut.map((d) => d.eventId) : undefined,
            ttl: this.ttl(),
          });
        }),
      ),
    );
  }

  getDelivery(id: string): Promise<Delivery | undefined> {
    return this.table.getDoc(`DELIVERY#${id}`, 'DELIVERY', DeliverySchema, 'stored delivery');
  }

  async getDeliveryRecord(id: string): Promise<DeliveryRecord | undefined> {
    const item = await this.table.getItem(`DELIVERY#${id}`, 'DELIVERY');
    if (!item) return undefined;
    return {
      delivery: parseOrThrow(DeliverySchema, item.doc, 'stored delivery'),
      attempts: attemptLogOf(item),
    };
  }

  async updateDelivery(delivery: Delivery, attempts?: readonly Attempt[]): Promise<boolean> {
    const key = { pk: `DELIVERY#${delivery.id}`, sk: 'DELIVERY' };
    const expected = { ':expected': delivery.version - 1 };
    try {
      if (attempts) {
        await this.table.put(
          { ...key, version: delivery.version, doc: delivery, log: [...attempts], ttl: this.ttl() },
          'version = :expected',
          expected,
        );
      } else {
        // Keeps the folded log: only the record, its version and its expiry change.
        await this.table.set(
          key,
          { version: delivery.version, doc: delivery, ttl: this.ttl() },
          'version = :expected',
          expected,
        );
      }
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async listDeliveries(query: DeliveryQuery): Promise<Delivery[]> {
    const { own, atOnce } = await findDeliveries(this.table, query);
    return newestFirst([...own, ...atOnce.map((record) => record.delivery)], query.limit);
  }

  async listDeliveryRecords(query: DeliveryQuery): Promise<DeliveryRecord[]> {
    const { own, atOnce } = await findDeliveries(this.table, query);
    const records = await Promise.all(
      own.map(async (delivery) => ({ delivery, attempts: await this.listAttempts(delivery.id) })),
    );
    const byId = new Map([...records, ...atOnce].map((record) => [record.delivery.id, record]));
    return newestFirst(
      [...byId.values()].map((record) => record.delivery),
      query.limit,
    ).map((delivery) => byId.get(delivery.id)!);
  }

  async putAttempt(attempt: Attempt): Promise<void> {
    await this.table.put({
      pk: `DELIVERY#${attempt.deliveryId}`,
      sk: `ATTEMPT#${String(attempt.attempt).padStart(4, '0')}`,
      doc: attempt,
      ttl: this.ttl(),
    });
  }

  async listAttempts(deliveryId: string): Promise<Attempt[]> {
    return attemptsOfDeliveryItems(await this.table.query(`DELIVERY#${deliveryId}`, {}));
  }

  /**
   * Lists the dead letter for {@link WEBHOOK_RETENTION_MS} from now, and keeps its event (the body
   * a redelivery sends) as long: the event item's expiry was counted from when the event was
   * stored, a day or more before the last attempt (longer for a replayed event), so a dead letter
   * could outlive its body and a redelivery find no event.
   */
  async addDeadLetter(delivery: Delivery): Promise<void> {
    const ttl = this.ttl();
    await Promise.all([
      this.table.put({ pk: `DLQ#${delivery.subscriptionId}`, sk: deadLetterSk(delivery), ttl }),
      this.keepEventUntil(delivery.eventId, ttl),
    ]);
  }

  /** Moves the event's expiry to `ttl` (epoch s) if it is sooner; nothing for an event gone. */
  private async keepEventUntil(eventId: string, ttl: number): Promise<void> {
    try {
      await this.table.set(
        { pk: `EVENT#${eventId}`, sk: 'EVENT' },
        { ttl },
        // `#a0`, `:a0`: the attribute `ttl` (a reserved word) and its new value.
        'attribute_exists(pk) AND (attribute_not_exists(#a0) OR #a0 < :a0)',
        {},
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  async listDeadLetters(subscriptionId: string, sinceMs: number): Promise<string[]> {
    const items = await this.table.query(`DLQ#${subscriptionId}`, { from: iso(sinceMs) });
    return items.map((item) => String(item.sk).split('#').at(-1) ?? '');
  }

  async removeDeadLetter(delivery: Delivery): Promise<void> {
    await this.table.delete(`DLQ#${delivery.subscriptionId}`, deadLetterSk(delivery));
  }

  getEndpointState(subscriptionId: string): Promise<EndpointState | undefined> {
    return this.table.getDoc(
      `ENDPOINT#${subscriptionId}`,
      'STATE',
      EndpointStateSchema,
      'endpoint state',
    );
  }

  async putEndpointState(
    state: EndpointState,
    options: { ifVersion: number | undefined },
  ): Promise<EndpointState | undefined> {
    const { ifVersion } = options;
    const stored = { ...state, version: (ifVersion ?? 0) + 1 };
    // A state never written, or written before versions, has no `doc.version`.
    const written = await this.table.tryPut(
      { pk: `ENDPOINT#${state.subscriptionId}`, sk: 'STATE', doc: stored },
      ifVersion === undefined ? 'attribute_not_exists(doc.version)' : 'doc.version = :version',
      ifVersion === undefined ? undefined : { ':version': ifVersion },
    );
    return written ? stored : undefined;
  }
}

function deadLetterSk(delivery: Delivery): string {
  return `${iso(delivery.deadAt ?? delivery.updatedAt)}#${delivery.id}`;
}
