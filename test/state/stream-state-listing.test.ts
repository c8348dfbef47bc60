import { describe, expect, it } from 'vitest';
import type { StreamState } from '../../shared/state/state-store.ts';
import {
  listMergedStreamStates,
  type ReadStreamStatePage,
} from '../../shared/state/stream-state-listing.ts';
import { streamState } from './state-store.contract.ts';

/** Partitions held in memory, each sorted by stream id, read page by page; every read recorded. */
function partitions(held: Record<string, StreamState[]>) {
  const reads: { pk: string; limit: number | undefined; returned: number }[] = [];
  const readPage: ReadStreamStatePage = async (pk, startKey, limit) => {
    const states = [...(held[pk] ?? [])].sort((a, b) => (a.streamId < b.streamId ? -1 : 1));
    const from = startKey === undefined ? 0 : (startKey.index as number);
    // A page of at most 50, as DynamoDB's 1 MB cuts a page short.
    const to = Math.min(states.length, from + Math.min(limit ?? 50, 50));
    reads.push({ pk, limit, returned: to - from });
    return { states: states.slice(from, to), next: to < states.length ? { index: to } : undefined };
  };
  return { readPage, reads };
}

const ids = (states: readonly StreamState[]) => states.map((s) => s.streamId);

/** `count` states of connections `c-0…`, two streams each, dealt over `shards` partitions. */
function dealt(count: number, shards: number): Record<string, StreamState[]> {
  const held: Record<string, StreamState[]> = {};
  for (let i = 0; i < count; i++) {
    const pk = `S#${(i * 7) % shards}`;
    const partition = held[pk] ?? [];
    held[pk] = partition;
    for (const type of ['customer', 'resource'])
      partition.push(streamState(`c-${String(i).padStart(5, '0')}:${type}`));
  }
  return held;
}

describe('listMergedStreamStates', () => {
  it('merges every partition in stream id order, across pages', async () => {
    const held = dealt(500, 8);
    const { readPage } = partitions(held);
    const shardPks = Object.keys(held);

    const listed = await listMergedStreamStates({
      legacyPk: 'L',
      shardPks,
      concurrency: 3,
      readPage,
    });

    const all = Object.values(held).flat();
    expect(ids(listed)).toEqual(ids(all).sort());
  });

  it('adds the legacy partition’s states, a shard’s state winning over a legacy one of the same id', async () => {
    const { readPage } = partitions({
      L: [
        streamState('a:customer', { version: 1 }),
        streamState('c:customer', { version: 2 }),
        streamState('e:customer', { version: 3 }),
      ],
      S0: [streamState('c:customer', { version: 8 }), streamState('d:customer', { version: 9 })],
      S1: [streamState('b:customer', { version: 7 })],
    });
    const list = (limit?: number) =>
      listMergedStreamStates({
        legacyPk: 'L',
        shardPks: ['S0', 'S1'],
        concurrency: 2,
        readPage,
        ...(limit === undefined ? {} : { limit }),
      });

    expect((await list()).map((s) => [s.streamId, s.version])).toEqual([
      ['a:customer', 1],
      ['b:customer', 7],
      ['c:customer', 8],
      ['d:customer', 9],
      ['e:customer', 3],
    ]);
    expect(ids(await list(4))).toEqual(['a:customer', 'b:customer', 'c:customer', 'd:customer']);
    expect(await list(0)).toEqual([]);
  });

  it('with a limit, returns the first states and reads about twice the limit at most, however many there are', async () => {
    const held = dealt(5_000, 32);
    const { readPage, reads } = partitions(held);
    const shardPks = Object.keys(held);

    const listed = await listMergedStreamStates({
      legacyPk: 'L',
      shardPks,
      limit: 101,
      concurrency: 8,
      readPage,
    });

    expect(ids(listed)).toEqual(ids(Object.values(held).flat()).sort().slice(0, 101));
    const read = reads.reduce((sum, r) => sum + r.returned, 0);
    expect(read).toBeLessThanOrEqual(2 * 101 + shardPks.length);
    expect(reads.every((r) => r.limit !== undefined && r.limit <= 101)).toBe(true);
  });

  it('reads the legacy partition before any shard', async () => {
    const held = { L: [streamState('a:customer')], ...dealt(20, 4) };
    const { readPage, reads } = partitions(held);

    await listMergedStreamStates({
      legacyPk: 'L',
      shardPks: ['S#0', 'S#1', 'S#2', 'S#3'],
      concurrency: 4,
      readPage,
    });

    expect(reads[0]!.pk).toBe('L');
    expect(reads.filter((r) => r.pk === 'L')).toHaveLength(1);
  });
});
