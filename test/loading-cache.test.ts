import { describe, expect, it } from 'vitest';
import { LoadingCache } from '../shared/loading-cache.ts';

describe('LoadingCache', () => {
  it('loads a key once, shares a load in flight, and lets the least recently used go past its bound', async () => {
    const evicted: string[] = [];
    const loads: string[] = [];
    const cache = new LoadingCache<string>(2, (value) => void evicted.push(value));
    const load = (key: string) => async () => {
      loads.push(key);
      return `client ${key}`;
    };
    const [a1, a2] = [cache.get('a', load('a')), cache.get('a', load('a'))];
    expect(await a1).toBe('client a');
    expect(await a2).toBe('client a');
    await cache.get('b', load('b'));
    await cache.get('a', load('a')); // a is now the most recently used
    await cache.get('c', load('c'));
    await Promise.resolve();

    expect(loads).toEqual(['a', 'b', 'c']);
    expect(evicted).toEqual(['client b']);
    expect(cache.size).toBe(2);
  });

  it('forgets a failed load, so the next get loads again', async () => {
    const cache = new LoadingCache<string>(10);
    await expect(cache.get('a', async () => Promise.reject(new Error('kms down')))).rejects.toThrow(
      'kms down',
    );
    expect(cache.size).toBe(0);
    expect(await cache.get('a', async () => 'client a')).toBe('client a');
  });

  it('lets go of a deleted key, telling onEvict, so the next get loads it again', async () => {
    const evicted: string[] = [];
    const cache = new LoadingCache<string>(10, (value) => void evicted.push(value));
    await cache.get('a', async () => 'client a (old token)');
    cache.delete('a');
    cache.delete('never held');
    await Promise.resolve();
    expect(evicted).toEqual(['client a (old token)']);
    expect(cache.size).toBe(0);
    expect(await cache.get('a', async () => 'client a (new token)')).toBe('client a (new token)');
  });
});
