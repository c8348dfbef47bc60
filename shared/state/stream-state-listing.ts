/**
 * A listing of stream states over several partitions, each read in sort key order: the legacy
 * `STREAMS` partition and the shards (stream-state-shards.ts), merged into one list ordered by
 * stream id as one partition's Query would return it. I/O goes through the caller's page reader.
 */
import { forEachConcurrently } from '../concurrency.ts';
import type { StreamState } from './state-store.ts';
import { compareSortKeys } from './stream-state-shards.ts';

/** One page of a partition's Query; `next` is where the next page starts (none: the last). */
export interface StreamStatePage {
  states: StreamState[];
  next: Record<string, unknown> | undefined;
}

/** Reads one page of `pk`'s states from `startKey`, at most `limit` of them (any number when absent). */
export type ReadStreamStatePage = (
  pk: string,
  startKey: Record<string, unknown> | undefined,
  limit: number | undefined,
) => Promise<StreamStatePage>;

/** What {@link listMergedStreamStates} reads. */
export interface MergedListing {
  /** The partition of states stored before sharding; a shard's state of the same id wins over its. */
  legacyPk: string;
  /** The shard partitions to read. */
  shardPks: readonly string[];
  /** The most states to return (the first by stream id); every one when absent. */
  limit?: number;
  /** Shard Queries in flight at once. */
  concurrency: number;
  readPage: ReadStreamStatePage;
}

/** The states of one partition read so far and not yet merged, and where its next page starts. */
class PartitionCursor {
  private states: StreamState[] = [];
  private index = 0;
  private next: Record<string, unknown> | undefined;
  private done = false;

  constructor(
    readonly pk: string,
    private readonly readPage: ReadStreamStatePage,
  ) {}

  /** The next state in stream id order; undefined once the partition is read to its end. */
  head(): StreamState | undefined {
    return this.states[this.index];
  }

  /** Takes the head. */
  take(): StreamState {
    const state = this.states[this.index];
    if (state === undefined) throw new Error(`no state left of ${this.pk}`);
    this.index += 1;
    return state;
  }

  /**
   * Reads pages of at most `pageLimit` until at least `wanted` states are unmerged or the
   * partition ends (a page may come back empty while more follow).
   */
  async fill(pageLimit: number | undefined, wanted = 1): Promise<void> {
    while (!this.done && this.states.length - this.index < wanted) {
      const page = await this.readPage(this.pk, this.next, pageLimit);
      this.states = [...this.states.slice(this.index), ...page.states];
      this.index = 0;
      this.next = page.next;
      this.done = page.next === undefined;
    }
  }
}

/**
 * Every state of the partitions (the first `limit` when given) ordered by stream id (the
 * store's sort key order), a stream id once: its shard's state when the legacy partition holds
 * one too (a copy left by a move cut off before it deleted it).
 *
 * The legacy partition is read first, up to the limit, and the shards after it: a state moved
 * meanwhile is copied to its shard before it is deleted from the legacy partition, so it is
 * found in one or the other. With a limit, each shard is read `ceil(limit / shards)` states a
 * Query, and again only when its last state read is merged: at most about twice the limit is
 * read, however many states there are.
 */
export async function listMergedStreamStates(listing: MergedListing): Promise<StreamState[]> {
  const wanted = listing.limit ?? Number.POSITIVE_INFINITY;
  const merged: StreamState[] = [];
  if (wanted < 1) return merged;
  const legacy = new PartitionCursor(listing.legacyPk, listing.readPage);
  const shards = listing.shardPks.map((pk) => new PartitionCursor(pk, listing.readPage));
  const remaining = () =>
    listing.limit === undefined ? undefined : Math.max(1, listing.limit - merged.length);
  const shardPageLimit =
    listing.limit === undefined
      ? undefined
      : Math.max(1, Math.ceil(listing.limit / Math.max(1, shards.length)));
  await legacy.fill(remaining(), wanted);
  await forEachConcurrently(shards, listing.concurrency, (shard) => shard.fill(shardPageLimit));
  while (merged.length < wanted) {
    const shard = firstShard(shards);
    const shardHead = shard?.head();
    const legacyHead = legacy.head();
    if (shard === undefined || shardHead === undefined) {
      if (legacyHead === undefined) break;
      merged.push(legacy.take());
      await legacy.fill(remaining());
      continue;
    }
    const order =
      legacyHead === undefined ? 1 : compareSortKeys(legacyHead.streamId, shardHead.streamId);
    if (order < 0) {
      merged.push(legacy.take());
      await legacy.fill(remaining());
      continue;
    }
    if (order === 0) {
      legacy.take();
      await legacy.fill(remaining());
    }
    merged.push(shard.take());
    await shard.fill(shardPageLimit);
  }
  return merged;
}

/** The shard whose head sorts first; undefined when every shard is read to its end. */
function firstShard(shards: readonly PartitionCursor[]): PartitionCursor | undefined {
  let first: PartitionCursor | undefined;
  let firstId: string | undefined;
  for (const shard of shards) {
    const id = shard.head()?.streamId;
    if (id === undefined) continue;
    if (firstId === undefined || compareSortKeys(id, firstId) < 0) {
      first = shard;
      firstId = id;
    }
  }
  return first;
}
