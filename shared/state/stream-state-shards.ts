/**
 * Where a stream state lives in the single table: one of {@link STREAM_STATE_SHARDS} partitions
 * `STREAMS#<n>`, n a stable hash of the stream's connection id, so a connection's streams share
 * one partition (its listing stays one Query) while the table's stream states spread over all.
 * Releases before sharding kept every state under {@link LEGACY_STREAMS_PK}; the store still
 * reads those until each is moved by its next write (dynamodb-stream-states.ts). Pure.
 */
import { createHash } from 'node:crypto';
import { splitStreamId } from '../connections/connection.ts';
import type { StreamFilter } from './state-store.ts';

/**
 * Partitions the stream states are spread over in AWS. Never change it on a table that holds
 * states: each would be looked for under another partition and taken for missing.
 *
 * Why 32: a quiet poll writes its stream's state once (1 WCU, under 1 KB) and reads it once
 * (1 RCU, strongly consistent, under 4 KB), so a property of 13 streams polled every minute
 * writes 13/60 ≈ 0.22 WCU/s and reads as much. One partition takes at most 1,000 WCU/s and
 * 3,000 RCU/s: writes bind first, at about 4,600 properties on one partition. 32 partitions
 * take 32,000 WCU/s: about 140,000 properties once the hash's unevenness is counted (with
 * 10,000 properties the busiest shard holds about 350 connections, 76 WCU/s, 8 % of its limit),
 * beyond the table's own default of 40,000 write and read units a second and the account's
 * Lambda concurrency, which bind first, and with room for first syncs and backfills, which
 * write once per page. More shards buy nothing before those quotas, and every listing of all
 * streams is one Query per shard: 32 keeps that a single round of parallel Queries.
 */
export const STREAM_STATE_SHARDS = 32;

/** Partition key of every stream state stored by a release before sharding. */
export const LEGACY_STREAMS_PK = 'STREAMS';

/** Prefix of the sharded partition keys: `STREAMS#<n>`. */
const SHARD_PK_PREFIX = `${LEGACY_STREAMS_PK}#`;

/**
 * The local runtime's count: dynalite has no partition limits, and each shard costs a Query
 * of every full read of the states (the local poll loop's, up to four a second), about 0.7 ms
 * each in process.
 */
export const LOCAL_STREAM_STATE_SHARDS = 1;

/**
 * The shard of a stream: the first four bytes of the SHA-256 of its connection id (the text
 * before the stream id's first colon), modulo `shards`. Stable across releases and processes.
 * @example streamStateShard('hotel-1:customer') === streamStateShard('hotel-1:resource') // true
 */
export function streamStateShard(streamId: string, shards = STREAM_STATE_SHARDS): number {
  const { connectionId } = splitStreamId(streamId);
  return createHash('sha256').update(connectionId, 'utf8').digest().readUInt32BE(0) % shards;
}

/** Partition key of one shard. @example streamStateShardPk(7) // 'STREAMS#7' */
export function streamStateShardPk(shard: number): string {
  return `${SHARD_PK_PREFIX}${shard}`;
}

/** Partition key of a stream's state: its connection's shard of `shards`. */
export function streamStatePk(streamId: string, shards = STREAM_STATE_SHARDS): string {
  return streamStateShardPk(streamStateShard(streamId, shards));
}

/**
 * The shard partitions a listing reads: one connection's shard when the filter names one
 * (its stream ids, `<connectionId>:…`, all hash to it), every shard otherwise, in shard order.
 */
export function streamStatePartitions(
  filter: StreamFilter = {},
  shards = STREAM_STATE_SHARDS,
): string[] {
  if (filter.connectionId !== undefined) return [streamStatePk(`${filter.connectionId}:`, shards)];
  return Array.from({ length: shards }, (_, shard) => streamStateShardPk(shard));
}

/**
 * Orders two sort keys as DynamoDB does (by their UTF-8 bytes, i.e. by code point), where
 * JavaScript's `<` compares UTF-16 code units: they differ for a character past U+FFFF against
 * one from U+E000 to U+FFFF.
 * @example compareSortKeys('a', 'b') // -1
 */
export function compareSortKeys(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) {
    const left = a.charCodeAt(index);
    const right = b.charCodeAt(index);
    if (left !== right) return codePointRank(left) < codePointRank(right) ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** A UTF-16 code unit moved so that surrogates (D800–DFFF) sort after E000–FFFF, as their code points do. */
function codePointRank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  if (unit >= 0xe000) return unit - 0x800;
  return unit;
}
