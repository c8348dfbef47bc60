import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { linkOrCopy } from '../../shared/connections/local-key-file.ts';

/*
 * A data dir on a filesystem without hard links (FAT and exFAT drives, some FUSE and network
 * mounts) answers link() with EPERM or ENOTSUP: the key file is given its name all the same.
 */
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const refusingLink = (code: string) => async () => {
  throw Object.assign(new Error(`${code}: operation not permitted, link`), { code });
};

async function tempKey(): Promise<{ dir: string; temp: string; path: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'key-no-links-'));
  dirs.push(dir);
  const temp = join(dir, 'connections.key.tmp-1');
  await writeFile(temp, 'a2V5\n', { mode: 0o600 });
  return { dir, temp, path: join(dir, 'connections.key') };
}

describe('the local key file on a filesystem without hard links', () => {
  it.each(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV'])(
    'where link() answers %s, is copied to its name with mode 0600',
    async (code) => {
      const { temp, path } = await tempKey();
      await linkOrCopy(temp, path, refusingLink(code));
      expect(await readFile(path, 'utf8')).toBe('a2V5\n');
      expect((await stat(path)).mode & 0o777).toBe(0o600);
    },
  );

  it('never copies over a key file another creator placed first', async () => {
    const { dir, temp, path } = await tempKey();
    await writeFile(path, 'dGhlaXJz\n');
    await expect(linkOrCopy(temp, path, refusingLink('EPERM'))).rejects.toMatchObject({
      code: 'EEXIST',
    });
    expect(await readFile(path, 'utf8')).toBe('dGhlaXJz\n');
    expect((await readdir(dir)).sort()).toEqual(['connections.key', 'connections.key.tmp-1']);
  });

  it('passes any other refusal of link() on', async () => {
    const { temp, path } = await tempKey();
    await expect(linkOrCopy(temp, path, refusingLink('EACCES'))).rejects.toMatchObject({
      code: 'EACCES',
    });
  });
});
