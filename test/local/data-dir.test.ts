import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../../shared/errors.ts';
import { DATA_DIR_MODE, ensureDataDir } from '../../shared/local/data-dir.ts';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('ensureDataDir', () => {
  it('creates the data dir and its missing parents for its owner alone', async () => {
    const root = await mkdtemp(join(tmpdir(), 'data-dir-'));
    dirs.push(root);
    const dataDir = join(root, 'a', 'b', '.bridge');
    await ensureDataDir(dataDir);
    for (const dir of [join(root, 'a'), join(root, 'a', 'b'), dataDir])
      expect((await stat(dir)).mode & 0o777).toBe(DATA_DIR_MODE);
    await ensureDataDir(dataDir);
  });

  // Node's own recursive mkdir retries ENOENT under /proc for ever (a process that never starts).
  it.skipIf(!existsSync('/proc/self'))(
    'names a path where the file system refuses new directories, rather than spinning',
    async () => {
      const refused = ensureDataDir('/proc/change-bridge-data/.bridge');
      await expect(refused).rejects.toBeInstanceOf(ValidationError);
      await expect(refused).rejects.toThrow(/--data-dir \(BRIDGE_DATA_DIR\)/);
    },
    5_000,
  );
});
