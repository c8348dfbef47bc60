import { type AddressInfo, createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  ephemeralRange,
  freePort,
  listensOn,
  readEphemeralRange,
  workerPortRange,
} from './free-port.ts';

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

  it('tells a port a server holds from a free one, without throwing', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      expect(await listensOn(port)).toBe(false);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(await listensOn(port)).toBe(true);
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
