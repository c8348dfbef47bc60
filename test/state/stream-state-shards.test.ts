import { describe, expect, it } from 'vitest';
import {
  compareSortKeys,
  STREAM_STATE_SHARDS,
  streamStatePartitions,
  streamStatePk,
  streamStateShard,
} from '../../shared/state/stream-state-shards.ts';

describe('stream state shards', () => {
  it('puts a stream under its connection’s shard, the same in every release (a change would lose stored states)', () => {
    expect(streamStatePk('hotel-1:customer')).toBe('STREAMS#29');
    expect(streamStatePk('hotel-1:resource')).toBe('STREAMS#29');
    expect(streamStatePk('hotel-2:customer')).toBe('STREAMS#13');
    expect(streamStatePk('local:customer')).toBe('STREAMS#26');
    expect(streamStatePk('main')).toBe(streamStatePk('main:customer'));
  });

  it('spreads 10,000 connections over every shard, the busiest under 12 % above the mean', () => {
    const counts = new Array<number>(STREAM_STATE_SHARDS).fill(0);
    for (let i = 0; i < 10_000; i++) {
      const shard = streamStateShard(`hotel-${i}:customer`);
      counts[shard] = (counts[shard] ?? 0) + 1;
    }
    expect(counts).toHaveLength(STREAM_STATE_SHARDS);
    expect(Math.max(...counts)).toBeLessThan((10_000 / STREAM_STATE_SHARDS) * 1.12);
    expect(Math.min(...counts)).toBeGreaterThan(0);
  });

  it('lists every shard for all streams, the connection’s own for one connection', () => {
    const all = streamStatePartitions();
    expect(all).toHaveLength(STREAM_STATE_SHARDS);
    expect(new Set(all).size).toBe(STREAM_STATE_SHARDS);
    expect(all).toContain(streamStatePk('hotel-1:customer'));
    expect(streamStatePartitions({ connectionId: 'hotel-1' })).toEqual([
      streamStatePk('hotel-1:customer'),
    ]);
  });

  it('orders sort keys by code point as DynamoDB does, not by UTF-16 unit', () => {
    const ids = ['b', 'a:x', 'a', '\u{1F600}', '\uFF21', 'a:\u00e9', 'a:z'];
    const sorted = [...ids].sort(compareSortKeys);
    expect(sorted).toEqual(['a', 'a:x', 'a:z', 'a:\u00e9', 'b', '\uFF21', '\u{1F600}']);
    // By UTF-8 bytes, the order DynamoDB keeps.
    const byBytes = [...ids].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    expect(sorted).toEqual(byBytes);
    expect(compareSortKeys('a', 'a')).toBe(0);
  });
});
