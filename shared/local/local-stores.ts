import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Clock, RandomSource } from '../clock.ts';
import { DynamoDbStateStore } from '../state/dynamodb-state-store.ts';
import { LOCAL_STREAM_STATE_SHARDS } from '../state/stream-state-shards.ts';
import { DynamoDbDeliveryCounter } from '../webhooks/dynamodb-delivery-counter.ts';
import { DynamoDbWebhookStore } from '../webhooks/dynamodb-store.ts';
import { LOCAL_TABLE_NAME } from './local-table-name.ts';

/** The stores of a local run, all in the one state table of the local DynamoDB. */
export interface LocalStores {
  state: DynamoDbStateStore;
  webhookStore: DynamoDbWebhookStore;
  deliveryCounter: DynamoDbDeliveryCounter;
}

/**
 * The state store, webhook store and delivery counter of a local run over `client`, tuned for
 * dynalite (no partition limits, no cost per kilobyte). Opens nothing: the table must exist.
 */
export function openLocalStores(
  client: DynamoDBClient,
  clock: Clock,
  random: RandomSource,
): LocalStores {
  const state = new DynamoDbStateStore({
    client,
    tableName: LOCAL_TABLE_NAME,
    clock,
    random,
    // Local writes cost nothing per kilobyte: snapshots are stored as text (a 100,000-customer
    // first sync about 5 % faster; docs/benchmarks.md).
    compressSnapshotsAbove: Number.POSITIVE_INFINITY,
    // No partition limits in dynalite: every full read of the states is two Queries, not 33.
    streamStateShards: LOCAL_STREAM_STATE_SHARDS,
  });
  const webhookStore = new DynamoDbWebhookStore({
    client,
    tableName: LOCAL_TABLE_NAME,
    clock,
    // Event bodies as text too: deflating them cost ~12 % of the dispatcher's CPU here, and
    // LevelDB's own block compression keeps the data dir the same size (docs/benchmarks.md).
    compressBodies: false,
  });

  const deliveryCounter = new DynamoDbDeliveryCounter({
    client,
    tableName: LOCAL_TABLE_NAME,
  });
  return { state, webhookStore, deliveryCounter };
}
