import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../clock.ts';
import { parseOrThrow } from '../errors.ts';
import { isConditionFailure, iso, WebhookTable } from './dynamodb-table-access.ts';
import {
  type Attempt,
  AttemptSchema,
  type Delivery,
  DeliverySchema,
  type EndpointState,
  EndpointStateSchema,
  type StoredEvent,
  StoredEventSchema,
  type WebhookStore,
} from './store.ts';
import { type Subscription, SubscriptionSchema } from './subscription.ts';

/** How long events, deliveries, attempts and dead letters are kept: 30 days. */
export const WEBHOOK_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/*
 * Key design in the shared single table (pk/sk strings, TTL attribute `ttl` in epoch
 * seconds; the state store owns `STREAM#…` and `STREAMS`). Every item keeps its record
 * in a `doc` map, parsed with the record's schema on the way out.
 *   SUBS              SUB#<subId>                  subscription (secrets included), no TTL
 *   EVENT#<eventId>   EVENT                        stored event: summary + exact body
 *   EVENT#<eventId>   DLV#<deliveryId>             index: deliveries of an event
 *   EVENTS            <storedAt ISO>#<eventId>     index: events newest first (one partition:
 *                                                  ~1,000 writes/s, far above our event rate)
 *   DELIVERY#<id>     DELIVERY                     delivery; conditional on `version`
 *   DELIVERY#<id>     ATTEMPT#<nnnn>               attempt log, same partition: one Query
 *   SUB#<subId>       DLV#<createdAt ISO>#<id>     index: deliveries of a subscription
 *   DLQ#<subId>       <deadAt ISO>#<deliveryId>    dead letters by time, for redelivery
 *   ENDPOINT#<subId>  STATE                        pause and failure run of the endpoint
 */

/** Options of {@link DynamoDbWebhookStore}. */
export interface DynamoDbWebhookStoreOptions {
  /** A low-level client; the store wraps it in a DocumentClient that drops undefined values. */
  client: DynamoDBClient;
  tableName: string;
  clock: Clock;
  retentionMs?: number;
}

/** The DynamoDB {@link WebhookStore} (AWS and dynalite alike), on the key design above. */
export class DynamoDbWebhookStore implements WebhookStore {
  private readonly table: WebhookTable;

  constructor(private readonly options: DynamoDbWebhookStoreOptions) {
    const client = DynamoDBDocumentClient.from(options.client, {
      marshallOptions: { removeUndefinedValues: true },
    });
    this.table = new WebhookTable(client, options.tableName);
  }

  private ttl(): number {
    const retention = this.options.retentionMs ?? WEBHOOK_RETENTION_MS;
    return Math.floor((this.options.clock.now() + retention) / 1000);
  }

  async putSubscription(subscription: Subscription): Promise<void> {
    await this.table.put({ pk: 'SUBS', sk: `SUB#${subscription.id}`, doc: subscription });
  }

  getSubscription(id: string): Promise<Subscription | undefined> {
    return this.table.getDoc('SUBS', `SUB#${id}`, SubscriptionSchema, 'stored subscription');
  }

  async listSubscriptions(): Promise<Subscription[]> {
    const items = await this.table.query('SUBS', { prefix: 'SUB#' });
    return items.map((item) => parseOrThrow(SubscriptionSchema, item.doc, 'stored subscription'));
  }

  async deleteSubscription(id: string): Promise<void> {
    await this.table.delete('SUBS', `SUB#${id}`);
  }

  async putEvent(event: StoredEvent): Promise<void> {
    try {
      await this.table.put(
        { pk: `EVENT#${event.id}`, sk: 'EVENT', doc: event, ttl: this.ttl() },
        'attribute_not_exists(pk)',
      );
    } catch (error) {
      if (isConditionFailure(error)) return;
      throw error;
    }
    const { body: _body, ...summary } = event;
    await this.table.put({
      pk: 'EVENTS',
      sk: `${iso(event.storedAt)}#${event.id}`,
      doc: summary,
      ttl: this.ttl(),
    });
  }

  getEvent(id: string): Promise<StoredEvent | undefined> {
    return this.table.getDoc(`EVENT#${id}`, 'EVENT', StoredEventSchema, 'stored event');
  }

  async listEvents(query: { type?: string; limit: number }): Promise<StoredEvent[]> {
    const ids: string[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.table.queryPage({
        pk: 'EVENTS',
        filter:
          query.type === undefined
            ? undefined
            : {
                expression: '#doc.#type = :type',
                names: { '#doc': 'doc', '#type': 'type' },
                values: { ':type': query.type },
              },
        newestFirst: true,
        limit: Math.max(query.limit, 25),
        start,
      });
      for (const item of page.Items ?? []) {
        const id = String(item.sk).split('#').at(-1);
        if (id) ids.push(id);
      }
      start = page.LastEvaluatedKey;
    } while (start && ids.length < query.limit);
    const events = await this.table.batchGet(
      ids.slice(0, query.limit).map((id) => ({ pk: `EVENT#${id}`, sk: 'EVENT' })),
      StoredEventSchema,
    );
    return events;
  }

  async createDelivery(delivery: Delivery): Promise<boolean> {
    try {
      await this.table.put(
        {
          pk: `DELIVERY#${delivery.id}`,
          sk: 'DELIVERY',
          version: delivery.version,
          doc: delivery,
          ttl: this.ttl(),
        },
        'attribute_not_exists(pk)',
      );
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
    await Promise.all([
      this.table.put({
        pk: `EVENT#${delivery.eventId}`,
        sk: `DLV#${delivery.id}`,
        ttl: this.ttl(),
      }),
      this.table.put({
        pk: `SUB#${delivery.subscriptionId}`,
        sk: `DLV#${iso(delivery.createdAt)}#${delivery.id}`,
        ttl: this.ttl(),
      }),
    ]);
    return true;
  }

  getDelivery(id: string): Promise<Delivery | undefined> {
    return this.table.getDoc(`DELIVERY#${id}`, 'DELIVERY', DeliverySchema, 'stored delivery');
  }

  async updateDelivery(delivery: Delivery): Promise<boolean> {
    try {
      await this.table.put(
        {
          pk: `DELIVERY#${delivery.id}`,
          sk: 'DELIVERY',
          version: delivery.version,
          doc: delivery,
          ttl: this.ttl(),
        },
        'version = :expected',
        { ':expected': delivery.version - 1 },
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async listDeliveries(query: {
    subscriptionId?: string;
    eventId?: string;
    limit: number;
  }): Promise<Delivery[]> {
    let ids: string[];
    if (query.subscriptionId !== undefined) {
      const items = await this.table.query(`SUB#${query.subscriptionId}`, {
        prefix: 'DLV#',
        newestFirst: true,
        limit: query.eventId === undefined ? query.limit : undefined,
      });
      ids = items.map((item) => String(item.sk).split('#').at(-1) ?? '');
    } else if (query.eventId !== undefined) {
      const items = await this.table.query(`EVENT#${query.eventId}`, { prefix: 'DLV#' });
      ids = items.map((item) => String(item.sk).slice('DLV#'.length));
    } else {
      return [];
    }
    const deliveries = await this.table.batchGet(
      ids.map((id) => ({ pk: `DELIVERY#${id}`, sk: 'DELIVERY' })),
      DeliverySchema,
    );
    return deliveries
      .filter((d) => query.eventId === undefined || d.eventId === query.eventId)
      .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1))
      .slice(0, query.limit);
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
    const items = await this.table.query(`DELIVERY#${deliveryId}`, { prefix: 'ATTEMPT#' });
    return items.map((item) => parseOrThrow(AttemptSchema, item.doc, 'stored attempt'));
  }

  async addDeadLetter(delivery: Delivery): Promise<void> {
    await this.table.put({
      pk: `DLQ#${delivery.subscriptionId}`,
      sk: deadLetterSk(delivery),
      ttl: this.ttl(),
    });
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

  async putEndpointState(state: EndpointState): Promise<void> {
    await this.table.put({ pk: `ENDPOINT#${state.subscriptionId}`, sk: 'STATE', doc: state });
  }
}

function deadLetterSk(delivery: Delivery): string {
  return `${iso(delivery.deadAt ?? delivery.updatedAt)}#${delivery.id}`;
}
