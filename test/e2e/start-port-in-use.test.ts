import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin } from '../support/run-bin.ts';

describe('change-bridge start on an admin port already in use', () => {
  it('exits 1 naming the address, instead of polling on with nothing listening', async () => {
    const taken = createServer((_request, response) => response.end());
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    const dataDir = await mkdtemp(join(tmpdir(), 'bridge-port-'));
    try {
      // Killed (code null) if it is still running after 60 s.
      const result = await runBin(
        ['start', '--port', String(port), '--data-dir', dataDir],
        {},
        60_000,
      );
      expect(result.code).toBe(1);
      expect(`${result.stdout}${result.stderr}`).toContain(`EADDRINUSE`);
      expect(`${result.stdout}${result.stderr}`).toContain(`127.0.0.1:${port} is in use`);
      expect(`${result.stdout}${result.stderr}`).toContain('--port or BRIDGE_PORT');
    } finally {
      await new Promise((resolve) => taken.close(resolve));
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});
