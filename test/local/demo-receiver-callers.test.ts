import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEMO_MAX_CONNECTIONS,
  type DemoReceiver,
  type ReceivedWebhook,
  startDemoReceiver,
} from '../../shared/local/demo-receiver.ts';
import { rawRequest } from '../support/raw-post.ts';
import { rawExchange } from '../support/raw-socket.ts';

// The demo receiver runs inside start, on a loopback port its banner prints. A page the
// operator visits can POST to it (no-cors, any body), and so can any local process.
describe('the demo receiver of start --demo-receiver', () => {
  let receiver: DemoReceiver;
  const seen: ReceivedWebhook[] = [];
  let port: string;
  beforeAll(async () => {
    receiver = await startDemoReceiver((webhook) => seen.push(webhook));
    receiver.useSecretSource(async () => 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    port = new URL(receiver.url).port;
  });
  afterAll(async () => {
    await receiver?.close();
  });

  const post = (headers: Record<string, string>, body: string) =>
    rawRequest({ host: '127.0.0.1', port, method: 'POST', path: '/hook', headers, body });
  const webhookHeaders = {
    'content-type': 'application/json',
    'webhook-id': 'msg_page',
    'webhook-timestamp': '1',
    'webhook-signature': 'v1,AAAA',
  };

  it('refuses a web page request (an Origin, or another Host) with 403, printing no line', async () => {
    seen.length = 0;
    const fromPage = await post(
      { ...webhookHeaders, host: `127.0.0.1:${port}`, origin: 'http://attacker.example' },
      '{}',
    );
    expect(fromPage.status).toBe(403);
    const rebound = await post({ ...webhookHeaders, host: `attacker.example:${port}` }, '{}');
    expect(rebound.status).toBe(403);
    expect(seen).toEqual([]);
  });

  it('refuses a body larger than any webhook (413) instead of holding it in memory', async () => {
    seen.length = 0;
    const answer = await post(
      { ...webhookHeaders, host: `127.0.0.1:${port}` },
      'x'.repeat(2 * 1024 * 1024),
    );
    expect(answer.status).toBe(413);
    expect(seen).toEqual([
      { verified: false, id: 'msg_page', reason: expect.stringContaining('larger than') },
    ]);
  });

  it('still reports an unsigned request under its own address as rejected (401)', async () => {
    seen.length = 0;
    const answer = await post({ ...webhookHeaders, host: `127.0.0.1:${port}` }, '{}');
    expect(answer.status).toBe(401);
    expect(seen).toEqual([expect.objectContaining({ verified: false, id: 'msg_page' })]);
  });
});

describe('the demo receiver connections', () => {
  it('closes an idle connection after its headers timeout, and connections beyond its cap as they open', async () => {
    // 300 ms instead of its 10 s, so as not to wait it out.
    const headersTimeoutMs = 300;
    const receiver = await startDemoReceiver(() => undefined, 0, { headersTimeoutMs });
    const port = Number(new URL(receiver.url).port);
    const held: Socket[] = [];
    try {
      // An idle connection (no request at all) is answered 408 and closed.
      // node:http checks its connections' timeouts every second.
      const idle = await rawExchange(port, [], headersTimeoutMs + 2500);
      expect(idle.ending).not.toBe('open');
      expect(idle.elapsedMs).toBeGreaterThanOrEqual(headersTimeoutMs);
      expect(idle.text).toMatch(/^HTTP\/1\.1 408/);
      for (let i = 0; i < DEMO_MAX_CONNECTIONS; i++)
        held.push(
          await new Promise<Socket>((resolve, reject) => {
            const socket = connect(port, '127.0.0.1', () => resolve(socket));
            socket.once('error', reject);
          }),
        );
      const beyond = await rawExchange(port, [], 3000);
      expect(beyond.text).toBe('');
      expect(beyond.ending).not.toBe('open');
    } finally {
      for (const socket of held) socket.destroy();
      await receiver.close();
    }
  });
});
