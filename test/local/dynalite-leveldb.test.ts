import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { afterEach, describe, expect, it } from 'vitest';
import {
  closeDynaliteIterators,
  LOCAL_LEVELDB_DEFAULTS,
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
});
