import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN_PATH } from '../support/run-bin.ts';

function streamView(index: number) {
  return {
    id: `hotel-${index}:customer`,
    connectionId: `hotel-${index}`,
    entityType: 'customer',
    configured: true,
    strategy: 'windowed',
    watermark: '2026-01-01T00:00:00.000Z',
    lastPollAt: '2026-01-01T00:00:01.000Z',
    lastSuccessAt: '2026-01-01T00:00:01.000Z',
    nextDueAt: null,
    lagSeconds: 1,
    consecutiveFailures: 0,
    lastError: null,
    parked: false,
    parkedReason: null,
    initialSyncDone: true,
    windowInProgress: null,
    recordsRead: 0,
    eventsPublished: 0,
  };
}

let server: Server;
let api: string;
beforeAll(async () => {
  // An admin API with 5,000 streams: a table far larger than a pipe's buffer.
  const body = JSON.stringify({ streams: Array.from({ length: 5000 }, (_, i) => streamView(i)) });
  server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe('CLI output into a reader that stops early', () => {
  it('exits 0 without a stack trace when the pipe closes (streams list | head -1)', async () => {
    const child = spawn(process.execPath, [BIN_PATH, 'streams', 'list', '--api', api], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    let firstLine = '';
    // Like `head -1`: read the first chunk, then close the read side.
    child.stdout.once('data', (chunk: Buffer) => {
      firstLine = chunk.toString().split('\n')[0] ?? '';
      child.stdout.destroy();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(firstLine).toContain('STREAM');
    expect(stderr).not.toContain('EPIPE');
    expect(code).toBe(0);
  });
});
