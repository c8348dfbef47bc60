/**
 * Item layout of the state store in the shared single table (string keys `pk`, `sk`;
 * TTL attribute `ttl`, epoch seconds). The dispatcher keeps its items in the same table
 * under its own prefixes (SUB#, DELIVERY#, ...); this store only ever touches:
 *
 * | Item          | pk                  | sk                | Other attributes                                     |
 * |---------------|---------------------|-------------------|------------------------------------------------------|
 * | snapshot      | `STREAM#<streamId>` | `SNAP#<entityId>` | entityId, hash, record (JSON string) or recordZ (the same, raw-deflated, above 600 bytes), scope, deleted, ttl, updatedAt |
 * | lease         | `STREAM#<streamId>` | `LEASE`           | owner, expiresAt (epoch ms), ttl (clean-up only)     |
 * | stream state  | `STREAMS#<n>`       | `<streamId>`      | every StreamState field, version                     |
 * | removed note  | `REMOVED_STREAMS`   | `<streamId>`      | removedAt: a tombstoned stream the purge step has to empty |
 *
 * Why: a stream's snapshots and lease share one item collection, so a scan of one stream
 * (reconciliation, resync) and a reset are Queries on one pk. Stream states are spread over
 * 32 partitions, n a stable hash of the connection id (`STREAM_STATE_SHARDS` in
 * stream-state-shards.ts): one partition would pass DynamoDB's 1,000 WCU/s from about 4,600
 * properties polled every minute; a connection's states stay one Query, all of them one per
 * shard. Releases before sharding stored them under `STREAMS` (same sort key): read until moved
 * by their next write (dynamodb-stream-states.ts). There is no LSI, so the collection has no
 * 10 GB cap and DynamoDB may split a hot collection by sort key.
 *
 * Limits: `record` is one compact JSON string (marshalling a deep map is far slower), so a
 * snapshot is bounded by the 400 KB item limit (checked before writing); entity ids are
 * bounded by the 1,024-byte sort key limit.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { z } from 'zod';
import { SMALL_INPUT_DEFLATE } from '../deflate-options.ts';
import { parseOrThrow, toValidationError } from '../errors.ts';
import { isJsonObject } from '../json-object.ts';
import {
  type PreparedSnapshot,
  type RemovedStreamNote,
  SnapshotScopeSchema,
  type StoredSnapshot,
  type StreamState,
  StreamStateSchema,
} from './state-store.ts';
import { LEGACY_STREAMS_PK, STREAM_STATE_SHARDS, streamStatePk } from './stream-state-shards.ts';

/** Partition key of the notes of removed streams (StreamState.removedAt) left to purge. */
export const REMOVED_STREAMS_PK = 'REMOVED_STREAMS';
/** Sort key of a stream's lease item. */
export const LEASE_SK = 'LEASE';
/** Sort key prefix of snapshot items. */
export const SNAPSHOT_SK_PREFIX = 'SNAP#';

/** Primary key of one item. */
export type ItemKey = { pk: string; sk: string };

/** Partition key of a stream's snapshots and lease. */
export function streamPk(streamId: string): string {
  return `STREAM#${streamId}`;
}

/** Key of a snapshot item. */
export function snapshotKey(streamId: string, entityId: string): ItemKey {
  return { pk: streamPk(streamId), sk: `${SNAPSHOT_SK_PREFIX}${entityId}` };
}

/** Key of a stream state item: under its connection's shard of `shards`. */
export function streamStateKey(streamId: string, shards = STREAM_STATE_SHARDS): ItemKey {
  return { pk: streamStatePk(streamId, shards), sk: streamId };
}

/** Key a release before sharding stored a stream state under (read until the state is moved). */
export function legacyStreamStateKey(streamId: string): ItemKey {
  return { pk: LEGACY_STREAMS_PK, sk: streamId };
}

/** Key of the note that a stream was removed and awaits its purge. */
export function removedStreamKey(streamId: string): ItemKey {
  return { pk: REMOVED_STREAMS_PK, sk: streamId };
}

/** Key of a lease item. */
export function leaseKey(streamId: string): ItemKey {
  return { pk: streamPk(streamId), sk: LEASE_SK };
}

/**
 * Builds the stored item of a validated snapshot (optional fields left out when absent); a
 * record longer than `compressAbove` bytes of JSON is stored deflated (AWS: {@link
 * SNAPSHOT_COMPRESS_ABOVE_BYTES}).
 */
export function toSnapshotItem(
  streamId: string,
  prepared: PreparedSnapshot,
  compressAbove: number,
): Record<string, unknown> {
  const { snapshot, recordJson, recordBytes } = prepared;
  // Members written out, not spread from the key: V8 (Node 20) gives an object that adds a
  // member after a spread a hidden class of its own, made anew for every item (see
  // test/hidden-classes.test.ts).
  const key = snapshotKey(streamId, snapshot.entityId);
  const item: Record<string, unknown> = {
    pk: key.pk,
    sk: key.sk,
    entityId: snapshot.entityId,
    hash: snapshot.hash,
    updatedAt: snapshot.updatedAt,
  };
  // A write unit is 1 KB: a larger record is stored deflated (a customer: ~1.6 KB → ~0.6 KB).
  if (recordBytes > compressAbove) {
    item.recordZ = deflateRawSync(recordJson, SMALL_INPUT_DEFLATE);
  } else {
    item.record = recordJson;
  }
  if (snapshot.scope !== undefined) item.scope = snapshot.scope;
  if (snapshot.deleted !== undefined) item.deleted = snapshot.deleted;
  if (snapshot.expiresAt !== undefined) item.ttl = snapshot.expiresAt;
  if (snapshot.unconfirmed !== undefined) item.unconfirmed = JSON.stringify(snapshot.unconfirmed);
  return item;
}

const JsonTextSchema = z.string().transform((text, ctx): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'is not valid JSON' });
    return z.NEVER;
  }
});

/**
 * A stored record's JSON text, parsed and checked as a JSON object but not copied:
 * `z.record(z.string(), z.unknown())` would copy every member of every previous record a
 * change event carries (the record was validated by its operation's schema when it was stored).
 */
const RecordJsonSchema = JsonTextSchema.pipe(
  z.custom<Record<string, unknown>>(isJsonObject, { message: 'expected a JSON object' }),
);

/** A snapshot's `unconfirmed` events, stored as one JSON text (rare: after a failed publish). */
const UnconfirmedJsonSchema = JsonTextSchema.pipe(z.array(z.record(z.string(), z.unknown())));

/** A snapshot item's fields but its record, which is parsed on first use. */
const SnapshotFieldsSchema = z.object({
  entityId: z.string(),
  hash: z.string(),
  record: z.string().optional(),
  recordZ: z.unknown().optional(),
  scope: SnapshotScopeSchema.optional(),
  deleted: z.boolean().optional(),
  ttl: z.number().int().optional(),
  updatedAt: z.number().int(),
  unconfirmed: UnconfirmedJsonSchema.optional(),
});

const SnapshotRecordSchema = z.object({ record: RecordJsonSchema });

/**
 * Records longer than this (bytes of JSON) are stored deflated in `recordZ` by default: in AWS
 * a write unit is 1 KB, so deflating a customer (~1.6 KB → ~0.6 KB) halves what it costs.
 */
export const SNAPSHOT_COMPRESS_ABOVE_BYTES = 600;

/**
 * The `record` JSON text of an item: `recordZ` inflated when it is readable bytes, else
 * `record` (undefined when neither is there, so the schema names `record`).
 */
function recordText(fields: { record?: string; recordZ?: unknown }): string | undefined {
  if (!(fields.recordZ instanceof Uint8Array)) return fields.record;
  try {
    return inflateRawSync(fields.recordZ).toString('utf8');
  } catch {
    return fields.record;
  }
}

/**
 * The JSON object `text` holds, or undefined when it is missing, not JSON or not an object
 * (then {@link SnapshotRecordSchema} says which): a check, not a copy, of every previous record
 * a change is judged against, without the schema's per-parse payloads.
 */
function jsonObjectOf(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return isJsonObject(value) ? value : undefined;
}

/**
 * Parses part of a stored snapshot `item`; the item's key is described only for the error
 * (reads parse an item per snapshot, and nearly all of them are well-formed).
 */
function parseSnapshotPart<S extends z.ZodType>(
  schema: S,
  value: unknown,
  item: unknown,
): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success)
    throw toValidationError(`stored snapshot ${describeItem(item)}`, result.error);
  return result.data;
}

/**
 * Parses a stored snapshot item; throws ValidationError naming the field (e.g. `hash`).
 * Its `record` is inflated, parsed and checked on first use, and a malformed one throws the
 * same ValidationError (path `record`) then: most reads only compare hashes (a re-read
 * record that did not change, the overlap of every window), and the record is most of an
 * item's bytes.
 */
export function fromSnapshotItem(item: unknown): StoredSnapshot {
  const { record, recordZ, ttl, ...fields } = parseSnapshotPart(SnapshotFieldsSchema, item, item);
  let parsed: Record<string, unknown> | undefined;
  // One literal with its getter: defining the getter on an object made already turned it into a
  // slow (dictionary) object, about 1 KB per snapshot read.
  return {
    ...fields,
    ...(ttl === undefined ? {} : { expiresAt: ttl }),
    get record(): Record<string, unknown> {
      if (parsed !== undefined) return parsed;
      const text = recordText({ record, recordZ });
      // Nearly every stored record is a JSON object: the schema runs only to name what is wrong.
      parsed =
        jsonObjectOf(text) ??
        parseSnapshotPart(SnapshotRecordSchema, { record: text }, item).record;
      return parsed;
    },
  };
}

/** Builds the stored item of a stream state, under its connection's shard of `shards`. */
export function toStreamStateItem(
  state: StreamState,
  shards = STREAM_STATE_SHARDS,
): Record<string, unknown> {
  return { ...state, ...streamStateKey(state.streamId, shards) };
}

/** Parses a stored stream state item; throws ValidationError naming the field (e.g. `version`). */
export function fromStreamStateItem(item: unknown): StreamState {
  return parseOrThrow(StreamStateSchema, item, `stored stream state ${describeItem(item)}`);
}

const KeyOnlySchema = z.object({ pk: z.string(), sk: z.string() });

/** Reads the key of an item (for deletes and messages). */
export function parseItemKey(item: unknown): ItemKey {
  return parseOrThrow(KeyOnlySchema, item, 'stored item key');
}

const RemovedStreamNoteItemSchema = z.object({
  sk: z.string(),
  removedAt: z.number().int().optional(),
});

/** Reads a removed stream's note (its `removedAt` absent on notes of before it was kept). */
export function parseRemovedStreamNote(item: unknown): RemovedStreamNote {
  const { sk, removedAt } = parseOrThrow(RemovedStreamNoteItemSchema, item, 'removed stream note');
  return removedAt === undefined ? { streamId: sk } : { streamId: sk, removedAt };
}

function describeItem(item: unknown): string {
  const key = KeyOnlySchema.safeParse(item);
  return key.success ? `${key.data.pk}/${key.data.sk}` : '(unknown key)';
}
