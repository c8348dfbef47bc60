import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type AdminServer, startAdminServer } from '../../shared/admin/node-server.ts';
import { nextAnswer } from '../support/raw-socket.ts';
import { type AdminHarness, createAdminHarness } from './support/harness.ts';

let harness: AdminHarness | undefined;
let server: AdminServer | undefined;
let socket: Socket | undefined;
afterEach(async () => {
  socket?.destroy();
  await server?.close();
  await harness?.close();
  server = undefined;
  harness = undefined;
});

/** A raw POST /connections adding `id`, on a keep-alive connection. */
function addRequest(port: number, id: string): string {
  const body = JSON.stringify({ id, accessToken: `token-of-${id}` });
  return (
    `POST /connections HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

describe('admin HTTP server closing while a write is served', () => {
  it('answers the write it is serving with connection: close and applies no request sent after it', async () => {
    harness = createAdminHarness();
    let release: (() => void) | undefined;
    const adding = new Promise<void>((called) => {
      // The add is stored; its answer waits here while the server starts closing.
      harness!.deps.connections!.onChange = () =>
        new Promise<void>((resolve) => {
          called();
          release = resolve;
        });
    });
    server = await startAdminServer({ port: 0, deps: harness.deps });
    const { port } = server;
    const client = connect(port, '127.0.0.1');
    socket = client;
    await new Promise<void>((resolve) => client.once('connect', () => resolve()));
    const first = nextAnswer(client);
    client.write(addRequest(port, 'hotel-1'));
    await adding;
    const closed = server.close();
    server = undefined;
    release!();
    const answer = await first;
    expect(answer.status).toBe(201);
    expect(answer.headers.connection).toBe('close');
    // A client that reuses the connection all the same (its next request was on its way): the
    // server must not apply what it can no longer answer.
    const ended = new Promise<string>((resolve) => {
      let rest = '';
      client.on('data', (data: Buffer) => {
        rest += data.toString('latin1');
      });
      client.once('close', () => resolve(rest));
    });
    client.on('error', () => {});
    client.write(addRequest(port, 'hotel-2'));
    const rest = await ended;
    await closed;
    expect(await harness.connections.get('hotel-1')).toBeDefined();
    expect({ stored: await harness.connections.get('hotel-2'), rest }).toEqual({
      stored: undefined,
      rest: '',
    });
  });
});
