import { afterEach, describe, expect, it } from 'vitest';
import {
  ADMIN_BODY_MAX_BYTES,
  type AdminServer,
  startAdminServer,
} from '../../shared/admin/node-server.ts';
import { parseRawAnswer, rawExchange } from '../support/raw-socket.ts';
import { type AdminHarness, createAdminHarness } from './support/harness.ts';

let harness: AdminHarness | undefined;
let server: AdminServer | undefined;
afterEach(async () => {
  await server?.close();
  await harness?.close();
  server = undefined;
  harness = undefined;
});

async function start(token?: string): Promise<AdminServer> {
  harness = createAdminHarness();
  server = await startAdminServer({ port: 0, token, deps: harness.deps });
  return server;
}

/** The head of a POST /subscriptions announcing a body of `length` bytes. */
function postHead(port: number, length: number, token?: string): string {
  return (
    `POST /subscriptions HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n` +
    'content-type: application/json\r\n' +
    (token ? `authorization: Bearer ${token}\r\n` : '') +
    `content-length: ${length}\r\n\r\n`
  );
}

describe('admin HTTP server answering before the body is read', () => {
  it('answers a request it refuses and closes the connection without waiting for the rest of the body', async () => {
    const { port } = await start('the-token');
    const exchange = await rawExchange(
      port,
      [postHead(port, 500_000, 'not-the-token'), '{"url":"'],
      3_000,
    );
    expect(parseRawAnswer(exchange.text).status).toBe(401);
    expect(parseRawAnswer(exchange.text).headers.connection).toBe('close');
    expect(exchange.ending).not.toBe('open');
  });

  it('answers 413 once the body passes the limit and closes the connection without reading the rest', async () => {
    const { port } = await start();
    const past = `{"url":"${'x'.repeat(ADMIN_BODY_MAX_BYTES)}`;
    const exchange = await rawExchange(
      port,
      [postHead(port, 4 * ADMIN_BODY_MAX_BYTES), past],
      3_000,
    );
    expect(parseRawAnswer(exchange.text).status).toBe(413);
    expect(exchange.ending).not.toBe('open');
  });

  it('keeps the connection of a refused request without a body open for the next one', async () => {
    const { port } = await start('the-token');
    const exchange = await rawExchange(
      port,
      [
        `GET /health HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n\r\n`,
        `GET /health HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n\r\n`,
      ],
      500,
    );
    expect(exchange.text.match(/HTTP\/1\.1 401/g)).toHaveLength(2);
    expect(exchange.ending).toBe('open');
  });
});
