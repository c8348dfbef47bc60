/**
 * Stream states on the single table, sharded by connection (stream-state-shards.ts), with the
 * states a release before sharding stored under `STREAMS` still read and moved to their shard
 * by their next write. No transactions (dynalite lacks them): a move is a copy created only
 * where none is, then a delete of the old item only at the version copied, so two writers
 * cannot both move one, and a write of either form in between is found and not lost.
 */
import { DeleteCommand, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { parseOrThrow } from '../errors.ts';
import type { DocumentClient } from './document-client.ts';
import {
  type ConditionalWriteTable,
  deleteIf,
  putIf,
  type WriteCondition,
} from './dynamodb-conditional-writes.ts';
import { withStoreErrors } from './dynamodb-errors.ts';
import {
  fromStreamStateItem,
  type ItemKey,
  legacyStreamStateKey,
  streamStateKey,
  toStreamStateItem,
} from './dynamodb-items.ts';
import {
  type ListStreamsOptions,
  StateConflictError,
  type StreamFilter,
  type StreamState,
  StreamStateSchema,
} from './state-store.ts';
import { listMergedStreamStates } from './stream-state-listing.ts';
import { LEGACY_STREAMS_PK, streamStatePartitions } from './stream-state-shards.ts';

/**
 * Times a move copies the old item again when it changed after the copy (a function still on
 * the release before sharding wrote it, mid-deploy) before the shard's copy is left as it is.
 */
const MOVE_RECOPIES = 3;

/** Written only where the key holds no item. */
const ABSENT: WriteCondition = {
  ConditionExpression: 'attribute_not_exists(#pk)',
  ExpressionAttributeNames: { '#pk': 'pk' },
};

/** Written only over the item at `version`. */
function atVersion(version: number): WriteCondition {
  return {
    ConditionExpression: '#version = :expected',
    ExpressionAttributeNames: { '#version': 'version' },
    ExpressionAttributeValues: { ':expected': version },
  };
}

/** Options of {@link DynamoDbStreamStates}. */
export interface DynamoDbStreamStatesOptions {
  documentClient: DocumentClient;
  tableName: string;
  /** Shard Queries of one listing in flight at once. */
  concurrency: number;
  /** Partitions the states are spread over (`STREAM_STATE_SHARDS` in AWS). */
  shards: number;
}

/**
 * The stream state part of DynamoDbStateStore: reads strongly consistent; a state found under
 * its shard costs one read, saved there one write, as before sharding.
 */
export class DynamoDbStreamStates {
  private readonly documentClient: DocumentClient;
  private readonly tableName: string;
  private readonly concurrency: number;
  private readonly shards: number;
  private readonly table: ConditionalWriteTable;

  constructor(options: DynamoDbStreamStatesOptions) {
    this.documentClient = options.documentClient;
    this.tableName = options.tableName;
    this.table = { documentClient: options.documentClient, tableName: options.tableName };
    this.concurrency = options.concurrency;
    this.shards = options.shards;
  }

  /**
   * The state under its shard, else under `STREAMS`, else under its shard again: a move between
   * the first two reads copied it to the shard before deleting the old item.
   */
  async get(streamId: string): Promise<StreamState | undefined> {
    const item =
      (await this.getItem(this.keyOf(streamId))) ??
      (await this.getItem(legacyStreamStateKey(streamId))) ??
      (await this.getItem(this.keyOf(streamId)));
    return item ? fromStreamStateItem(item) : undefined;
  }

  /** The states, merged from every shard the filter reaches and from `STREAMS`, by stream id. */
  async list(filter?: StreamFilter, options?: ListStreamsOptions): Promise<StreamState[]> {
    // One connection's states are a range of sort keys: `<connectionId>:…`.
    const prefix = filter?.connectionId === undefined ? undefined : `${filter.connectionId}:`;
    return listMergedStreamStates({
      legacyPk: LEGACY_STREAMS_PK,
      shardPks: streamStatePartitions(filter, this.shards),
      ...(options?.limit === undefined ? {} : { limit: options.limit }),
      concurrency: this.concurrency,
      readPage: async (pk, startKey, limit) => {
        const output = await this.call('Query', () =>
          this.documentClient.send(
            new QueryCommand({
              TableName: this.tableName,
              KeyConditionExpression:
                prefix === undefined ? '#pk = :pk' : '#pk = :pk AND begins_with(#sk, :prefix)',
              ExpressionAttributeNames:
                prefix === undefined ? { '#pk': 'pk' } : { '#pk': 'pk', '#sk': 'sk' },
              ExpressionAttributeValues:
                prefix === undefined ? { ':pk': pk } : { ':pk': pk, ':prefix': prefix },
              ConsistentRead: true,
              // After a page's last id: each partition's Query starts there, a key that need not exist.
              ExclusiveStartKey:
                startKey ?? (options?.after === undefined ? undefined : { pk, sk: options.after }),
              ...(limit === undefined ? {} : { Limit: limit }),
            }),
          ),
        );
        return {
          states: (output.Items ?? []).map(fromStreamStateItem),
          next: output.LastEvaluatedKey,
        };
      },
    });
  }

  /**
   * Writes the state under its shard if the stored version is `expectedVersion` (none stored
   * in either form when 0). A state found only under `STREAMS` is moved first, as it is, and
   * the write then applies to the moved one.
   * @throws StateConflictError when the stored state is at another version (or none is)
   */
  async save(state: StreamState, expectedVersion: number): Promise<StreamState> {
    const next = parseOrThrow(
      StreamStateSchema,
      { ...state, version: expectedVersion + 1 },
      `stream state ${state.streamId}`,
    );
    const item = toStreamStateItem(next, this.shards);
    const conflict = (cause?: unknown) =>
      new StateConflictError(state.streamId, expectedVersion, cause ? { cause } : {});
    if (expectedVersion === 0) {
      // A state not moved yet exists as much as a moved one.
      if (await this.getItem(legacyStreamStateKey(state.streamId))) throw conflict();
      const refusal = await putIf(this.table, item, ABSENT);
      if (refusal) throw conflict(refusal);
      return next;
    }
    if ((await putIf(this.table, item, atVersion(expectedVersion))) === undefined) return next;
    // None at that version under the shard: the state may not be moved yet, or moved just now.
    await this.moveLegacy(state.streamId);
    const refusal = await putIf(this.table, item, atVersion(expectedVersion));
    if (refusal) throw conflict(refusal);
    return next;
  }

  /**
   * Deletes both forms of the state: `STREAMS` first, the shard's last, so a move under way
   * either finds the old item gone (and takes its copy back) or is undone by the last delete.
   */
  async delete(streamId: string): Promise<void> {
    for (const key of [legacyStreamStateKey(streamId), this.keyOf(streamId)]) {
      await this.call('DeleteItem', () =>
        this.documentClient.send(new DeleteCommand({ TableName: this.tableName, Key: key })),
      );
    }
  }

  /**
   * Deletes the state only as it was read (`expectedVersion`), under its shard, where every
   * write puts it (a state still under `STREAMS` was never written by this release: false).
   */
  async deleteAtVersion(streamId: string, expectedVersion: number): Promise<boolean> {
    return (
      (await deleteIf(this.table, this.keyOf(streamId), atVersion(expectedVersion))) === undefined
    );
  }

  /**
   * Moves the state stored under `STREAMS`, if any, to its shard as it is: a copy where the
   * shard holds none (another writer's copy, or a state created there, wins), then the old
   * item deleted at the version copied. An old item gone meanwhile was deleted with the stream:
   * the copy is taken back. One changed meanwhile (a function not yet on this release wrote it)
   * is copied over the copy, unless a write to the shard came first.
   */
  private async moveLegacy(streamId: string): Promise<void> {
    const legacyKey = legacyStreamStateKey(streamId);
    const shardKey = this.keyOf(streamId);
    let legacy = await this.getItem(legacyKey);
    if (!legacy) return;
    let version = fromStreamStateItem(legacy).version;
    if (await putIf(this.table, { ...legacy, ...shardKey }, ABSENT)) return;
    for (let copies = 1; ; copies++) {
      if ((await deleteIf(this.table, legacyKey, atVersion(version))) === undefined) return;
      legacy = await this.getItem(legacyKey);
      if (!legacy) {
        await deleteIf(this.table, shardKey, atVersion(version));
        return;
      }
      const changed = fromStreamStateItem(legacy).version;
      if (copies > MOVE_RECOPIES) return;
      if (await putIf(this.table, { ...legacy, ...shardKey }, atVersion(version))) return;
      version = changed;
    }
  }

  private keyOf(streamId: string): ItemKey {
    return streamStateKey(streamId, this.shards);
  }

  private async getItem(key: ItemKey): Promise<Record<string, unknown> | undefined> {
    const output = await this.call('GetItem', () =>
      this.documentClient.send(
        new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }),
      ),
    );
    return output.Item;
  }

  private call<T>(operation: string, run: () => Promise<T>): Promise<T> {
    return withStoreErrors(this.tableName, operation, run);
  }
}
