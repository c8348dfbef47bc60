/**
 * DynamoDbStateStore: the state store on the single table. Key design: see the table at the
 * top of dynamodb-items.ts (snapshots `STREAM#<id>`/`SNAP#<entityId>`, lease
 * `STREAM#<id>`/`LEASE`, stream states `STREAMS#<n>`/`<streamId>`, n the connection's shard;
 * dynamodb-stream-states.ts).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { type Clock, type RandomSource, systemClock, systemRandom } from '../clock.ts';
import { mapWithConcurrency } from '../concurrency.ts';
import { ValidationError } from '../errors.ts';
import { type DocumentClient, documentClientOf } from './document-client.ts';
import {
  BATCH_CONCURRENCY_DEFAULT,
  type BatchContext,
  batchGetItems,
  batchWriteItems,
} from './dynamodb-batch.ts';
import {
  type ConditionalWriteTable,
  deleteIf,
  putIf,
  type WriteCondition,
} from './dynamodb-conditional-writes.ts';
import { withStoreErrors } from './dynamodb-errors.ts';
import {
  fromSnapshotItem,
  leaseKey,
  parseItemKey,
  parseRemovedStreamNote,
  REMOVED_STREAMS_PK,
  removedStreamKey,
  SNAPSHOT_COMPRESS_ABOVE_BYTES,
  SNAPSHOT_SK_PREFIX,
  snapshotKey,
  streamPk,
  toSnapshotItem,
} from './dynamodb-items.ts';
import { DynamoDbStreamStates } from './dynamodb-stream-states.ts';
import { type ItemPuts, itemPutsOf } from './item-puts.ts';
import {
  type Lease,
  type ListStreamsOptions,
  prepareSnapshots,
  type RemovedStreamNote,
  type ScanSnapshotsOptions,
  type SnapshotReplacement,
  type StateStore,
  type StoredSnapshot,
  type StreamFilter,
  type StreamState,
  scanPageSize,
} from './state-store.ts';
import { STREAM_STATE_SHARDS } from './stream-state-shards.ts';

/** Options of {@link DynamoDbStateStore}. */
export interface DynamoDbStateStoreOptions {
  client: DynamoDBClient;
  tableName: string;
  /** Waits between retries of unprocessed batch work (default: the wall clock). */
  clock?: Clock;
  /** Jitter of those retries (default: Math.random). */
  random?: RandomSource;
  /** Batch requests in flight per call (default {@link BATCH_CONCURRENCY_DEFAULT}). */
  concurrency?: number;
  /**
   * Snapshot records longer than this many bytes of JSON are stored deflated (default
   * {@link SNAPSHOT_COMPRESS_ABOVE_BYTES}, for AWS's 1 KB write units). A store whose writes
   * cost nothing per kilobyte (dynalite on the local disk) passes `Infinity`: deflating costs
   * more CPU there than the smaller item saves. Items are read back whichever way they were stored.
   */
  compressSnapshotsAbove?: number;
  /**
   * Partitions the stream states are spread over (default {@link STREAM_STATE_SHARDS}, for
   * AWS's per-partition limits); the local runtime passes `LOCAL_STREAM_STATE_SHARDS` (1).
   * Every store of one table must use the same count, for good: a state is looked for under
   * its shard of that count. A positive integer.
   */
  streamStateShards?: number;
}

/** Conditional snapshot puts in flight per batch request a plain write would have in flight. */
const SNAPSHOT_PUTS_PER_BATCH = 4;
/** Page size of the key-only Query behind a reset, in items. */
const DELETE_QUERY_PAGE_ITEMS = 1000;
/** Leases are checked on `expiresAt`; TTL only cleans up abandoned ones, a day later (s). */
const LEASE_TTL_GRACE_SECONDS = 86_400;
/**
 * {@link StateStore} on one DynamoDB table (key design in dynamodb-items.ts). Reads are
 * strongly consistent; batches are chunked to the AWS limits and run a few at a time.
 * No transactions (dynalite lacks them): each method is idempotent instead.
 * SDK failures surface as BridgeError (`retryable` unless the request itself was wrong).
 */
export class DynamoDbStateStore implements StateStore {
  private readonly documentClient: DocumentClient;
  private readonly tableName: string;
  private readonly batch: BatchContext;
  private readonly compressSnapshotsAbove: number;
  private readonly streamStates: DynamoDbStreamStates;
  private readonly table: ConditionalWriteTable;
  /** The store's own route for snapshot puts, where it has one (the local store: item-puts.ts). */
  private readonly itemPuts: ItemPuts | undefined;

  constructor(options: DynamoDbStateStoreOptions) {
    this.tableName = options.tableName;
    this.itemPuts = itemPutsOf(options.client);
    this.compressSnapshotsAbove = options.compressSnapshotsAbove ?? SNAPSHOT_COMPRESS_ABOVE_BYTES;
    this.documentClient = documentClientOf(options.client, {
      marshallOptions: { removeUndefinedValues: true },
    });
    this.table = { documentClient: this.documentClient, tableName: options.tableName };
    this.batch = {
      documentClient: this.documentClient,
      tableName: options.tableName,
      clock: options.clock ?? systemClock,
      random: options.random ?? systemRandom,
      concurrency: options.concurrency ?? BATCH_CONCURRENCY_DEFAULT,
      consistentRead: true,
    };
    const shards = options.streamStateShards ?? STREAM_STATE_SHARDS;
    if (!Number.isInteger(shards) || shards < 1)
      throw new ValidationError('state store options', [
        { path: 'streamStateShards', message: `must be a positive integer, got ${shards}` },
      ]);
    this.streamStates = new DynamoDbStreamStates({
      documentClient: this.documentClient,
      tableName: options.tableName,
      concurrency: this.batch.concurrency,
      shards,
    });
  }

  async getSnapshots(
    streamId: string,
    entityIds: readonly string[],
  ): Promise<Map<string, StoredSnapshot>> {
    const keys = [...new Set(entityIds)].map((entityId) => snapshotKey(streamId, entityId));
    const items = await this.call('BatchGetItem', () => batchGetItems(this.batch, keys));
    const snapshots = new Map<string, StoredSnapshot>();
    for (const item of items) {
      const snapshot = fromSnapshotItem(item);
      snapshots.set(snapshot.entityId, snapshot);
    }
    return snapshots;
  }

  async putSnapshots(streamId: string, snapshots: readonly StoredSnapshot[]): Promise<void> {
    const items = prepareSnapshots(streamId, snapshots).map((prepared) =>
      toSnapshotItem(streamId, prepared, this.compressSnapshotsAbove),
    );
    const { itemPuts } = this;
    const left = itemPuts
      ? await this.call('BatchWriteItem', () => itemPuts.put(this.tableName, items))
      : items;
    if (left.length === 0) return;
    const requests = left.map((Item) => ({ PutRequest: { Item } }));
    await this.call('BatchWriteItem', () => batchWriteItems(this.batch, requests));
  }

  async replaceSnapshots(
    streamId: string,
    replacements: readonly SnapshotReplacement[],
  ): Promise<string[]> {
    const prepared = prepareSnapshots(
      streamId,
      replacements.map((replacement) => replacement.snapshot),
    );
    const expected = new Map(
      replacements.map((replacement) => [replacement.snapshot.entityId, replacement.expected]),
    );
    // BatchWriteItem takes no condition: one conditional PutItem per snapshot, a few at a time.
    const refused = await mapWithConcurrency(
      prepared,
      this.batch.concurrency * SNAPSHOT_PUTS_PER_BATCH,
      async (snapshot) => {
        const version = expected.get(snapshot.snapshot.entityId);
        const refusal = await putIf(
          this.table,
          toSnapshotItem(streamId, snapshot, this.compressSnapshotsAbove),
          version === undefined
            ? {
                ConditionExpression: 'attribute_not_exists(#pk)',
                ExpressionAttributeNames: { '#pk': 'pk' },
              }
            : {
                ConditionExpression: '#updatedAt = :updatedAt AND #hash = :hash',
                ExpressionAttributeNames: { '#updatedAt': 'updatedAt', '#hash': 'hash' },
                ExpressionAttributeValues: {
                  ':updatedAt': version.updatedAt,
                  ':hash': version.hash,
                },
              },
        );
        return refusal ? snapshot.snapshot.entityId : undefined;
      },
    );
    return refused.filter((id) => id !== undefined);
  }

  async deleteSnapshots(streamId: string, entityIds: readonly string[]): Promise<void> {
    const requests = [...new Set(entityIds)].map((entityId) => ({
      DeleteRequest: { Key: { ...snapshotKey(streamId, entityId) } },
    }));
    await this.call('BatchWriteItem', () => batchWriteItems(this.batch, requests));
  }

  async *scanSnapshots(
    streamId: string,
    options: ScanSnapshotsOptions = {},
  ): AsyncIterable<StoredSnapshot[]> {
    const pageSize = scanPageSize(options);
    let startKey: Record<string, unknown> | undefined =
      options.after === undefined ? undefined : snapshotKey(streamId, options.after);
    do {
      const output = await this.call('Query', () =>
        this.documentClient.send(
          new QueryCommand({
            TableName: this.tableName,
            KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
            ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
            ExpressionAttributeValues: { ':pk': streamPk(streamId), ':prefix': SNAPSHOT_SK_PREFIX },
            ConsistentRead: true,
            Limit: pageSize,
            ExclusiveStartKey: startKey,
          }),
        ),
      );
      const page = (output.Items ?? []).map(fromSnapshotItem);
      // A page can come back empty while more follow (1 MB limit, filtered keys): skip it.
      if (page.length > 0) yield page;
      startKey = output.LastEvaluatedKey;
    } while (startKey);
  }

  getStream(streamId: string): Promise<StreamState | undefined> {
    return this.streamStates.get(streamId);
  }

  listStreams(filter?: StreamFilter, options?: ListStreamsOptions): Promise<StreamState[]> {
    return this.streamStates.list(filter, options);
  }

  saveStream(state: StreamState, expectedVersion: number): Promise<StreamState> {
    return this.streamStates.save(state, expectedVersion);
  }

  async deleteStream(streamId: string): Promise<void> {
    // Snapshots and lease go first, the state last: a reset cut off halfway stays visible in
    // listStreams, and running it again finishes it.
    let startKey: Record<string, unknown> | undefined;
    do {
      const output = await this.call('Query', () =>
        this.documentClient.send(
          new QueryCommand({
            TableName: this.tableName,
            KeyConditionExpression: '#pk = :pk',
            ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
            ExpressionAttributeValues: { ':pk': streamPk(streamId) },
            ProjectionExpression: '#pk, #sk',
            ConsistentRead: true,
            Limit: DELETE_QUERY_PAGE_ITEMS,
            ExclusiveStartKey: startKey,
          }),
        ),
      );
      const requests = (output.Items ?? []).map((item) => ({
        DeleteRequest: { Key: { ...parseItemKey(item) } },
      }));
      await this.call('BatchWriteItem', () => batchWriteItems(this.batch, requests));
      startKey = output.LastEvaluatedKey;
    } while (startKey);
    await this.streamStates.delete(streamId);
  }

  async deleteStreamState(streamId: string, expectedVersion: number): Promise<boolean> {
    return this.streamStates.deleteAtVersion(streamId, expectedVersion);
  }

  async markStreamRemoved(streamId: string, removedAt: number): Promise<void> {
    await this.call('PutItem', () =>
      this.documentClient.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...removedStreamKey(streamId), removedAt },
        }),
      ),
    );
  }

  async unmarkStreamRemoved(note: RemovedStreamNote): Promise<boolean> {
    // A note of before removedAt was kept has none: it goes only while it still has none.
    const unchanged: WriteCondition =
      note.removedAt === undefined
        ? {
            ConditionExpression: 'attribute_exists(#pk) AND attribute_not_exists(#removedAt)',
            ExpressionAttributeNames: { '#pk': 'pk', '#removedAt': 'removedAt' },
          }
        : {
            ConditionExpression: '#removedAt = :removedAt',
            ExpressionAttributeNames: { '#removedAt': 'removedAt' },
            ExpressionAttributeValues: { ':removedAt': note.removedAt },
          };
    return (await deleteIf(this.table, removedStreamKey(note.streamId), unchanged)) === undefined;
  }

  async listRemovedStreams(limit: number): Promise<RemovedStreamNote[]> {
    const ids: RemovedStreamNote[] = [];
    if (limit < 1) return ids;
    let startKey: Record<string, unknown> | undefined;
    do {
      const output = await this.call('Query', () =>
        this.documentClient.send(
          new QueryCommand({
            TableName: this.tableName,
            KeyConditionExpression: '#pk = :pk',
            ExpressionAttributeNames: { '#pk': 'pk' },
            ExpressionAttributeValues: { ':pk': REMOVED_STREAMS_PK },
            ConsistentRead: true,
            Limit: limit - ids.length,
            ExclusiveStartKey: startKey,
          }),
        ),
      );
      for (const item of output.Items ?? []) ids.push(parseRemovedStreamNote(item));
      startKey = output.LastEvaluatedKey;
    } while (startKey && ids.length < limit);
    return ids;
  }

  async acquireLease(
    streamId: string,
    owner: string,
    ttlMs: number,
    now: number,
  ): Promise<Lease | null> {
    const expiresAt = now + ttlMs;
    const refusal = await putIf(
      this.table,
      {
        ...leaseKey(streamId),
        owner,
        expiresAt,
        ttl: Math.ceil(expiresAt / 1000) + LEASE_TTL_GRACE_SECONDS,
      },
      {
        ConditionExpression: 'attribute_not_exists(#pk) OR #expiresAt <= :now OR #owner = :owner',
        ExpressionAttributeNames: { '#pk': 'pk', '#expiresAt': 'expiresAt', '#owner': 'owner' },
        ExpressionAttributeValues: { ':now': now, ':owner': owner },
      },
    );
    if (refusal) return null;
    return { streamId, owner, expiresAt };
  }

  async releaseLease(streamId: string, owner: string): Promise<void> {
    // A refusal is someone else's lease (ours expired and was taken) or none at all: nothing to release.
    await deleteIf(this.table, leaseKey(streamId), {
      ConditionExpression: '#owner = :owner',
      ExpressionAttributeNames: { '#owner': 'owner' },
      ExpressionAttributeValues: { ':owner': owner },
    });
  }

  private call<T>(operation: string, run: () => Promise<T>): Promise<T> {
    return withStoreErrors(this.tableName, operation, run);
  }
}
