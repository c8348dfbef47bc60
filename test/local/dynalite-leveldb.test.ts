import { pbkdf2 } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { afterEach, describe, expect, it } from 'vitest';
import {
  closeDynaliteIterators,
  LOCAL_LEVELDB_DEFAULTS,
  readLevelSynchronously,
  withLocalLevelDefaults,
} from '../../shared/local/dynalite-leveldb.ts';

const directories: string[] = [];

afterEach(async () => {
  await Promise.all(directories.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('dynalite on LevelDB', () => {
  it('lets a LevelDB value iterator be closed with return(), as dynalite ends its read streams', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bridge-iterators-'));
    directories.push(dir);
    const db = new ClassicLevel<string, string>(join(dir, 'db'));
    await db.put('a', '1');
    closeDynaliteIterators();
    closeDynaliteIterators();
    const iterator = db.values() as unknown as {
      next(): Promise<string | undefined>;
      return(): Promise<void>;
    };
    expect(await iterator.next()).toBe('1');
    await iterator.return();
    await expect(iterator.next()).rejects.toMatchObject({ code: 'LEVEL_ITERATOR_NOT_OPEN' });
    await db.close();
  });

  it('opens databases with small caches unless their owner chose its own', () => {
    expect(withLocalLevelDefaults({})).toEqual(LOCAL_LEVELDB_DEFAULTS);
    expect(withLocalLevelDefaults({ cacheSize: 1, valueEncoding: 'json' })).toEqual({
      ...LOCAL_LEVELDB_DEFAULTS,
      cacheSize: 1,
      valueEncoding: 'json',
    });
  });

  it('answers reads without waiting for a turn in the thread pool, with the same answers', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bridge-sync-reads-'));
    directories.push(dir);
    const db = new ClassicLevel<string, string>(join(dir, 'db'));
    await db.batch([
      { type: 'put', key: 'a', value: '1' },
      { type: 'put', key: 'b', value: 'two' },
    ]);
    readLevelSynchronously();
    readLevelSynchronously();
    // Every thread of libuv's pool (4) busy with a slow hash: an async read would queue behind them.
    const order: string[] = [];
    const hashes = Array.from(
      { length: 4 },
      () =>
        new Promise<void>((resolve) =>
          pbkdf2('secret', 'salt', 300_000, 32, 'sha512', () => {
            order.push('hash');
            resolve();
          }),
        ),
    );
    const reads = Promise.all([db.get('a'), db.get('missing'), db.getMany(['b', 'missing', 'a'])]);
    void reads.then(() => order.push('reads'));
    expect(await reads).toEqual(['1', undefined, ['two', undefined, '1']]);
    await Promise.all(hashes);
    expect(order[0]).toBe('reads');
    const snapshot = db.snapshot();
    await db.put('a', 'changed');
    expect(await db.get('a', { snapshot })).toBe('1');
    expect(await db.get('a')).toBe('changed');
    await snapshot.close();
    await db.close();
  });
});
