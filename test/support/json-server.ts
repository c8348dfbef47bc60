import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the test server saw it. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/** What the test server answers. */
export interface CannedResponse {
  status?: number;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

/** A JSON HTTP server on 127.0.0.1 with a scripted handler and a log of what it received. */
export interface JsonServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Starts a JSON server on an ephemeral loopback port. */
export async function startJsonServer(
  handler: (request: RecordedRequest) => CannedResponse | Promise<CannedResponse>,
): Promise<JsonServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const recorded: RecordedRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body: text ? JSON.parse(text) : undefined,
    };
    requests.push(recorded);
    const answer = await handler(recorded);
    const payload = answer.rawBody ?? JSON.stringify(answer.body ?? {});
    res.writeHead(answer.status ?? 200, {
      'content-type': 'application/json',
      'request-id': `req-${requests.length}`,
      ...answer.headers,
    });
    res.end(payload);
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
