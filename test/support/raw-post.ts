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
