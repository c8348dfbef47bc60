import { request } from 'node:http';

/**
 * A raw POST to `endpoint` with exactly `headers` (fetch cannot set Host): what a browser page
 * or another local process would send to one of the bridge's loopback servers.
 */
export function rawPost(
  endpoint: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; body: string }> {
  const url = new URL(endpoint);
  return new Promise((resolve, reject) => {
    const sent = request(
      { host: url.hostname, port: url.port, method: 'POST', path: '/', headers },
      (response) => {
        let text = '';
        response.on('data', (chunk) => {
          text += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}

/** What {@link rawRequest} got back. */
export interface RawAnswer {
  status: number;
  text: string;
  headers: Record<string, unknown>;
}

/**
 * One raw request to `host`:`port` with exactly `headers` (node:http lets a test choose the Host
 * header, as a rebinding page would; fetch cannot).
 */
export function rawRequest(target: {
  host: string;
  port: number | string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | undefined;
}): Promise<RawAnswer> {
  const { body, ...options } = target;
  return new Promise((resolve, reject) => {
    const outgoing = request(options, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          text: Buffer.concat(chunks).toString('utf8'),
          headers: response.headers,
        }),
      );
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
