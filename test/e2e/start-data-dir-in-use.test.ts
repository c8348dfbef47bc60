import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin } from '../support/run-bin.ts';

describe('change-bridge start on a data dir another process has open', () => {
  it('exits 1 naming that process, before opening the store or the queue', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'bridge-locked-'));
    // Stands in for a running change-bridge: the lock names a process that runs.
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120_000)']);
    try {
      await writeFile(join(dataDir, 'LOCK'), String(holder.pid));
      const result = await runBin(['start', '--port', '0', '--data-dir', dataDir], {}, 60_000);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`in use by process ${holder.pid}`);
      expect(await readdir(dataDir)).toEqual(['LOCK']);
    } finally {
      holder.kill();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 90_000);

  it('exits 2 naming --data-dir when the path is a file, as for any bad input', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'bridge-file-'));
    try {
      const file = join(parent, 'not-a-dir');
      await writeFile(file, '');
      const result = await runBin(['start', '--port', '0', '--data-dir', file], {}, 60_000);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        `--data-dir (BRIDGE_DATA_DIR): ${file} is a file, not a directory`,
      );
      const below = await runBin(
        ['start', '--port', '0', '--data-dir', join(file, 'sub')],
        {},
        60_000,
      );
      expect(below.code).toBe(2);
      expect(below.stderr).toContain('has a file where a parent directory should be');
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  }, 90_000);
});
