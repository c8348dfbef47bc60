import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Clock } from '../clock.ts';
import { mapWithConcurrency } from '../concurrency.ts';
import { parseOrThrow } from '../errors.ts';
import { fanOutDeliveryId } from './delivered-at-once.ts';
import {
  deleteDeadLetter,
  keepEventUntil,
  putDeadLetter,
  readDeadLetters,
} from './dynamodb-dead-letters.ts';
import {
  findDeliveries,
  findDeliveriesOfSubscriptions,
  findPendingDeliveries,
  LIST_READS_IN_FLIGHT,
  newestRecords,
} from './dynamodb-delivery-lists.ts';
import {
  readEndpointState,
  readEndpointStates,
  writeEndpointState,
} from './dynamodb-endpoint-states.ts';
import { readEventPage } from './dynamodb-event-page.ts';
import {
  attemptLogOf,
  attemptsOfDeliveryItems,
  bySubscription,
  eventItem,
  toStoredEvent,
  toStoredEventRecord,
} from './dynamodb-items.ts';
import { chunk, listSortKey, newestFirst } from './dynamodb-lists.ts';
import { isConditionFailure, WebhookTable } from './dynamodb-table-access.ts';
import { SUBSCRIPTIONS_PARTITION, WEBHOOK_RETENTION_MS } from './dynamodb-webhook-keys.ts';
import {
  type Attempt,
  type CreateDeliveryOptions,
  type Delivery,
  type DeliveryQuery,
  type DeliveryRecord,
  DeliverySchema,
  type EndpointState,
  type EventListQuery,
  type EventPage,
  type FanOutWrite,
  type PutEventOptions,
  type StoredEvent,
  type StoredEventRecord,
  type WebhookStore,
} from './store.ts';
import { type Subscription, SubscriptionSchema } from './subscription.ts';

/** Options of {@link DynamoDbWebhookStore}. */
export interface DynamoDbWebhookStoreOptions {
  /** A low-level client; the store wraps it in a DocumentClient that drops undefined values. */
  client: DynamoDBClient;
  tableName: string;
  clock: Clock;
  retentionMs?: number;
  /**
   * Whether event bodies are stored compressed (default true: a ~3.5 KB body shrinks to ~650
   * bytes, within one write unit). A store whose writes cost nothing per kilobyte (dynalite on
   * the local disk, whose LevelDB compresses its blocks anyway) passes false: deflating each
   * body was ~12 % of the local dispatcher's CPU. Items are read back whichever way they were
   * stored.
   */
  compressBodies?: boolean;
}

/**
 * The DynamoDB {@link WebhookStore} (AWS and dynalite alike), on the key design of
 * dynamodb-webhook-keys.ts.
 */
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

  async replaceSubscription(
    subscription: Subscription,
    options: { ifVersion: number | undefined },
  ): Promise<Subscription | undefined> {
    const { ifVersion } = options;
    const stored = { ...subscription, version: (ifVersion ?? 0) + 1 };
    // Stored without a version (a create, or an item written before versions): no `doc.version`.
    // Either way the item must exist: a change never brings back a removed subscription.
    const written = await this.table.tryPut(
      { pk: SUBSCRIPTIONS_PARTITION, sk: `SUB#${subscription.id}`, doc: stored },
      ifVersion === undefined
        ? 'attribute_exists(pk) AND attribute_not_exists(doc.version)'
        : 'doc.version = :version',
      ifVersion === undefined ? undefined : { ':version': ifVersion },
    );
    return written ? stored : undefined;
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

  async deleteSubscription(id: string): Promise<boolean> {
    return this.table.tryDeleteExisting(SUBSCRIPTIONS_PARTITION, `SUB#${id}`);
  }

  async putEvent(event: StoredEvent, options: PutEventOptions = {}): Promise<boolean> {
    const item = eventItem(event, {}, this.ttl(), this.options.compressBodies);
    if (!(await this.table.tryPut(item, 'attribute_not_exists(pk)'))) return false;
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
        eventItem(
          event,
          { deliveredAtOnce, deliveryIds: others.map((o) => o.delivery.id) },
          ttl,
          this.options.compressBodies,
        ),
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

  listEvents(query: EventListQuery): Promise<EventPage> {
    return readEventPage(this.table, query);
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
      keepEventUntil(this.table, delivery.eventId, ttl),
    ]);
    return true;
  }

  async indexDeliveries(deliveries: readonly Delivery[]): Promise<void> {
    await Promise.all(
      [...bySubscription(deliveries)].flatMap(([subscriptionId, own]) =>
        chunk(own).map((part) => {
          // A fan-out delivery is listed by its event (its id follows from the event and the
          // subscription, and the event's item is where a delivery kept compactly is read).
          const fanOut: Delivery[] = [];
          const others: Delivery[] = [];
          for (const d of part) {
            if (d.id === fanOutDeliveryId(d.eventId, subscriptionId)) fanOut.push(d);
            else others.push(d);
          }
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
          {
            pk: key.pk,
            sk: key.sk,
            version: delivery.version,
            doc: delivery,
            log: [...attempts],
            ttl: this.ttl(),
          },
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
    return newestFirst(
      [...own.map((o) => o.delivery), ...atOnce.map((record) => record.delivery)],
      query.limit,
    );
  }

  listPendingDeliveries(subscriptionId: string, limit: number): Promise<Delivery[]> {
    return findPendingDeliveries(this.table, subscriptionId, limit);
  }

  async listDeliveryRecords(query: DeliveryQuery): Promise<DeliveryRecord[]> {
    const found = await findDeliveries(this.table, query);
    return newestRecords(found, query.limit, (id) => this.listAttempts(id));
  }

  async listDeliveryRecordsBySubscription(
    subscriptionIds: readonly string[],
    limit: number,
  ): Promise<Map<string, DeliveryRecord[]>> {
    const found = [...(await findDeliveriesOfSubscriptions(this.table, subscriptionIds, limit))];
    const records = await mapWithConcurrency(found, LIST_READS_IN_FLIGHT, ([, deliveries]) =>
      newestRecords(deliveries, limit, (id) => this.listAttempts(id)),
    );
    return new Map(found.map(([id], index) => [id, records[index]!]));
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
  addDeadLetter(delivery: Delivery): Promise<void> {
    return putDeadLetter(this.table, delivery, this.ttl());
  }

  listDeadLetters(subscriptionId: string, sinceMs: number): Promise<string[]> {
    return readDeadLetters(this.table, subscriptionId, sinceMs);
  }

  removeDeadLetter(delivery: Delivery): Promise<void> {
    return deleteDeadLetter(this.table, delivery);
  }

  getEndpointState(subscriptionId: string): Promise<EndpointState | undefined> {
    return readEndpointState(this.table, subscriptionId);
  }

  getEndpointStates(subscriptionIds: readonly string[]): Promise<Map<string, EndpointState>> {
    return readEndpointStates(this.table, subscriptionIds);
  }

  putEndpointState(
    state: EndpointState,
    options: { ifVersion: number | undefined },
  ): Promise<EndpointState | undefined> {
    return writeEndpointState(this.table, state, options);
  }
}
