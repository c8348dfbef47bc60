import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { AdminApiClient } from '../../shared/cli/admin/api-client.ts';
import { CliExit } from '../../shared/cli/exit-codes.ts';

describe('the CLI admin client and a slow answer', () => {
  it('says the API did not answer in time and that its work may go on, not that it cannot be reached', async () => {
    const server = createServer(() => undefined); // never answers
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const client = new AdminApiClient(url, { timeoutMs: 200 });
      const failure = await client.callNoContent('DELETE', '/connections/hotel-1').catch((e) => e);
      expect(failure).toBeInstanceOf(CliExit);
      expect((failure as CliExit).code).toBe(1);
      expect((failure as Error).message).toBe(
        `the admin API at ${url} did not answer DELETE /connections/hotel-1 within 0.2 s; what it was doing may still be under way: look before you run it again`,
      );
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('waits longer for a request that deletes snapshots when asked to', async () => {
    const server = createServer((_request, response) => {
      setTimeout(() => response.writeHead(204).end(), 400);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const client = new AdminApiClient(url, { timeoutMs: 200 });
      await expect(
        client.callNoContent('DELETE', '/connections/hotel-1', { timeoutMs: 2_000 }),
      ).resolves.toBeUndefined();
      await expect(client.callNoContent('DELETE', '/connections/hotel-1')).rejects.toThrow(
        'did not answer DELETE /connections/hotel-1 within 0.2 s',
      );
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
