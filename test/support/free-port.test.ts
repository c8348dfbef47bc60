import { type AddressInfo, createServer, type Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ephemeralRange, freePort, readEphemeralRange, workerPortRange } from './free-port.ts';

describe('freePort', () => {
  it('reads the ephemeral range as /proc writes it, and falls back to Linux default', () => {
    expect(ephemeralRange('32768\t60999\n')).toEqual({ first: 32_768, last: 60_999 });
    expect(ephemeralRange('1024 65535')).toEqual({ first: 1_024, last: 65_535 });
    expect(ephemeralRange('')).toEqual({ first: 32_768, last: 60_999 });
    expect(ephemeralRange('60999 32768')).toEqual({ first: 32_768, last: 60_999 });
  });

  it('gives each worker its own slice below the ephemeral range', () => {
    const slices = [1, 2, 3, 4].map((poolId) => workerPortRange(32_768, poolId));
    for (const slice of slices) {
      expect(slice.first).toBeGreaterThanOrEqual(20_000);
      expect(slice.last).toBeLessThan(32_768);
      expect(slice.last).toBeGreaterThan(slice.first);
    }
    for (let i = 1; i < slices.length; i++) {
      expect(slices[i]?.first).toBeGreaterThan(slices[i - 1]?.last ?? Infinity);
    }
    expect(workerPortRange(32_768, 9)).toEqual(workerPortRange(32_768, 1));
  });

  it('passes over a port that a server holds', async () => {
    const held: Server[] = [];
    try {
      // Most of this worker's slice held: freePort still finds one of the rest, never a held one.
      const range = workerPortRange(
        readEphemeralRange().first,
        Number(process.env.VITEST_POOL_ID ?? process.pid),
      );
      for (let port = range.first; port < range.last - 20; port++) {
        const server = createServer();
        const listening = await new Promise<boolean>((resolve) => {
          server.once('error', () => resolve(false));
          server.listen(port, '127.0.0.1', () => resolve(true));
        });
        if (listening) held.push(server);
      }
      const heldPorts = new Set(held.map((server) => (server.address() as AddressInfo).port));
      for (let i = 0; i < 5; i++) expect(heldPorts.has(await freePort())).toBe(false);
    } finally {
      await Promise.all(held.map((server) => new Promise((resolve) => server.close(resolve))));
    }
  });

  it('gives a port below the ephemeral range that a server can listen on', async () => {
    const port = await freePort();
    expect(port).toBeLessThan(readEphemeralRange().first);
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    await new Promise((resolve) => server.close(resolve));
  });
});
