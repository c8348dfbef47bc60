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
