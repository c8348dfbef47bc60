import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';

/*
 * A data dir on a filesystem without hard links (FAT and exFAT drives, some FUSE and network
 * mounts) answers link() with EPERM or ENOTSUP: the key file is created there all the same.
 */
vi.mock('node:fs/promises', async (original) => {
  const fs = await original<typeof import('node:fs/promises')>();
  const refuse = async () => {
    throw Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM' });
  };
  return { ...fs, default: { ...fs, link: refuse }, link: refuse };
});

const { loadOrCreateKeyFile } = await import('../../shared/connections/local-key-file.ts');

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('the local key file on a filesystem without hard links', () => {
  it('is created once with mode 0600, read back the same, and leaves no temporary file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'key-no-links-'));
    dirs.push(dir);
    const path = join(dir, 'connections.key');
    const created = await loadOrCreateKeyFile(path);
    expect(created).toHaveLength(32);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(Buffer.from((await readFile(path, 'utf8')).trim(), 'base64')).toEqual(created);
    expect(await loadOrCreateKeyFile(path)).toEqual(created);
    expect(await readdir(dir)).toEqual(['connections.key']);
  });
});
