import { isConditionFailure, iso, type WebhookTable } from './dynamodb-table-access.ts';
import type { Delivery } from './store.ts';

/** The sort key of a delivery's dead letter in `DLQ#<subId>`: when it died, then its id. */
function deadLetterSortKey(delivery: Delivery): string {
  return `${iso(delivery.deadAt ?? delivery.updatedAt)}#${delivery.id}`;
}

/**
 * Lists the dead letter until `ttl` (epoch s) and keeps its event as long (see
 * {@link keepEventUntil}). Throws when the table fails.
 */
export async function putDeadLetter(
  table: WebhookTable,
  delivery: Delivery,
  ttl: number,
): Promise<void> {
  await Promise.all([
    table.put({ pk: `DLQ#${delivery.subscriptionId}`, sk: deadLetterSortKey(delivery), ttl }),
    keepEventUntil(table, delivery.eventId, ttl),
  ]);
}

/** The ids of the subscription's dead letters that died at `sinceMs` or later, oldest first. */
export async function readDeadLetters(
  table: WebhookTable,
  subscriptionId: string,
  sinceMs: number,
): Promise<string[]> {
  const items = await table.query(`DLQ#${subscriptionId}`, { from: iso(sinceMs) });
  return items.map((item) => String(item.sk).split('#').at(-1) ?? '');
}

/** Removes the delivery's dead letter; nothing when there is none. */
export async function deleteDeadLetter(table: WebhookTable, delivery: Delivery): Promise<void> {
  await table.delete(`DLQ#${delivery.subscriptionId}`, deadLetterSortKey(delivery));
}

/**
 * Moves the event's expiry to `ttl` (epoch s) if it is sooner; nothing for an event gone. A dead
 * letter or a replay needs the event's body as long as it lives.
 */
export async function keepEventUntil(
  table: WebhookTable,
  eventId: string,
  ttl: number,
): Promise<void> {
  try {
    await table.set(
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
