import { afterEach, describe, expect, it } from 'vitest';
import { type AdminServer, startAdminServer } from '../../shared/admin/node-server.ts';
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

async function start(): Promise<AdminServer> {
  harness = createAdminHarness();
  server = await startAdminServer({ port: 0, deps: harness.deps });
  return server;
}

/** The answer to what `chunks` send on a connection of their own, which the server must then close. */
async function answerTo(chunks: string[]) {
  const exchange = await rawExchange(server!.port, chunks, 5000);
  return { ...parseRawAnswer(exchange.text), ending: exchange.ending };
}

describe('admin HTTP server answering a request node:http cannot parse', () => {
  it('answers a malformed request, headers too large and a chunk extension too long with the headers of its own answers, a JSON error and a closed connection', async () => {
    await start();
    const host = `host: 127.0.0.1:${server!.port}\r\n`;
    const cases: [string, string[], number][] = [
      ['not HTTP', ['GARBAGE\r\n\r\n'], 400],
      ['a bad header line', [`GET /health HTTP/1.1\r\n${host}bad header\r\n\r\n`], 400],
      [
        'content-length with transfer-encoding',
        [
          `POST /subscriptions HTTP/1.1\r\n${host}content-length: 1\r\ntransfer-encoding: chunked\r\n\r\n`,
        ],
        400,
      ],
      [
        'headers too large',
        [`GET /health HTTP/1.1\r\n${host}x-big: ${'a'.repeat(20_000)}\r\n\r\n`],
        431,
      ],
      [
        'a chunk extension too long',
        [
          `POST /subscriptions HTTP/1.1\r\n${host}content-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n`,
          `2;ext=${'a'.repeat(20_000)}\r\n{}\r\n0\r\n\r\n`,
        ],
        413,
      ],
    ];
    for (const [name, chunks, status] of cases) {
      const answer = await answerTo(chunks);
      expect(answer.status, name).toBe(status);
      expect(answer.headers['x-content-type-options'], name).toBe('nosniff');
      expect(answer.headers['cache-control'], name).toBe('no-store');
      expect(answer.headers['content-type'], name).toBe('application/json; charset=utf-8');
      expect(answer.headers.connection, name).toBe('close');
      expect(Number(answer.headers['content-length']), name).toBe(Buffer.byteLength(answer.body));
      expect(JSON.parse(answer.body), name).toEqual({ error: expect.any(String) });
      // Closed with a FIN once the answer is out, not reset and not left open.
      expect(answer.ending, name).toBe('end');
    }
    // The server goes on serving.
    const health = await fetch(`${server!.url}/health`, { signal: AbortSignal.timeout(5000) });
    expect(health.status).toBe(200);
  });

  it('answers a request body node:http cannot parse in the place of the route answer', async () => {
    await start();
    const answer = await answerTo([
      `POST /subscriptions HTTP/1.1\r\nhost: 127.0.0.1:${server!.port}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    ]);
    expect(answer.status).toBe(400);
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.ending).toBe('end');
    expect(await harness!.deps.webhooks.listSubscriptions()).toEqual([]);
  });

  it('answers a malformed request pipelined behind one being served after that one, in order', async () => {
    harness = createAdminHarness();
    let release: () => void = () => {};
    const forwarded = new Promise<void>((called) => {
      harness!.deps.writeThrough = {
        forward: async () => {
          called();
          await new Promise<void>((resolve) => {
            release = resolve;
          });
          return { status: 200, body: { TaxEnvironments: [] }, headers: {}, events: 0 };
        },
        close: async () => {},
      };
    });
    server = await startAdminServer({ port: 0, deps: harness.deps });
    const exchange = rawExchange(
      server.port,
      [
        `POST /api/connector/v1/taxEnvironments/getAll HTTP/1.1\r\nhost: 127.0.0.1:${server.port}\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}`,
        'GARBAGE\r\n\r\n',
      ],
      5000,
    );
    await forwarded;
    release();
    const { text, ending } = await exchange;
    // node:http answered the garbage at once, with the 400 read as the first request's answer.
    const second = text.indexOf('HTTP/1.1', 1);
    expect(second, text).toBeGreaterThan(0);
    const first = parseRawAnswer(text.slice(0, second));
    expect(first.status).toBe(200);
    expect(JSON.parse(first.body)).toEqual({ TaxEnvironments: [] });
    const refused = parseRawAnswer(text.slice(second));
    expect(refused.status).toBe(400);
    expect(refused.headers['x-content-type-options']).toBe('nosniff');
    expect(ending).toBe('end');
  });

  it('answers an HTTP/1.1 request without Host and an expectation other than 100-continue with the headers of its own answers', async () => {
    await start();
    const host = `host: 127.0.0.1:${server!.port}\r\n`;
    const cases: [string, string, number][] = [
      ['no Host', 'GET /health HTTP/1.1\r\nconnection: close\r\n\r\n', 400],
      [
        'expect: later',
        `GET /health HTTP/1.1\r\n${host}expect: later\r\nconnection: close\r\n\r\n`,
        417,
      ],
    ];
    for (const [name, request, status] of cases) {
      const answer = await answerTo([request]);
      expect(answer.status, name).toBe(status);
      expect(answer.headers['x-content-type-options'], name).toBe('nosniff');
      expect(answer.headers['cache-control'], name).toBe('no-store');
      expect(JSON.parse(answer.body), name).toEqual({ error: expect.any(String) });
    }
  });

  it('names what was wrong without echoing the request or the parser error', async () => {
    await start();
    const answer = await answerTo(['<script>alert(1)</script> / HTTP/1.1\r\n\r\n']);
    expect(answer.status).toBe(400);
    expect(answer.body).not.toMatch(/script|HPE_|Parse Error/i);
  });
});

describe('admin HTTP server answering a request target that is not a URL', () => {
  it('answers 400 naming the target, not a 500 reported as its own failure', async () => {
    harness = createAdminHarness();
    const errors: unknown[] = [];
    server = await startAdminServer({
      port: 0,
      deps: { ...harness.deps, onError: (error) => errors.push(error) },
    });
    const host = `host: 127.0.0.1:${server.port}\r\nconnection: close\r\n`;
    for (const target of ['http://[bad/health', `http://127.0.0.1:99999/health`]) {
      const answer = await answerTo([`GET ${target} HTTP/1.1\r\n${host}\r\n`]);
      expect(answer.status, target).toBe(400);
      expect(answer.headers['x-content-type-options'], target).toBe('nosniff');
      expect(JSON.parse(answer.body), target).toEqual({
        error: 'the request target is not a valid URL',
      });
    }
    expect(errors).toEqual([]);
  });
});

describe('admin HTTP server losing a client before its request is whole', () => {
  it('reports nothing to the operator when a client hangs up or is cut off in the middle of a body', async () => {
    harness = createAdminHarness();
    const errors: unknown[] = [];
    server = await startAdminServer({
      port: 0,
      deps: { ...harness.deps, onError: (error) => errors.push(error) },
    });
    const head = `POST /subscriptions HTTP/1.1\r\nhost: 127.0.0.1:${server.port}\r\ncontent-type: application/json\r\n`;
    // Hangs up after 10 of 100 bytes.
    const hungUp = await rawExchange(
      server.port,
      [`${head}content-length: 100\r\n\r\n{"url":"h`],
      300,
    );
    expect(hungUp.ending).toBe('open');
    // A chunk size that is not hex: node:http refuses the rest of the body.
    const refused = await answerTo([`${head}transfer-encoding: chunked\r\n\r\n2\r\n{}\r\nzz\r\n`]);
    expect(refused.status).toBe(400);
    // Closing waits for both connections to be gone and their requests to be let go.
    await server.close();
    server = undefined;
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors).toEqual([]);
  });
});
