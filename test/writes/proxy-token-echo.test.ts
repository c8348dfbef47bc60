import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { postToProxy, useConnectorStandIn } from './support/connector-stand-in.ts';

/** Tokens long enough to be looked for in answers (REDACTED_TOKEN_MIN_LENGTH). */
const CLIENT_TOKEN = 'client-token-7f3a9c';
const ACCESS_TOKEN = 'access-token-b81e42';
const SERVICE = 'a0000000-0000-4000-8000-0000000000e2';

/** A connector (or a gateway before it) whose error answer repeats the request it was sent. */
function echoingError(status: number, as: 'json' | 'text') {
  return (request: IncomingMessage, response: ServerResponse) => {
    let sent = '';
    request.on('data', (chunk: Buffer) => {
      sent += chunk.toString('utf8');
    });
    request.on('end', () => {
      response.statusCode = status;
      response.setHeader('request-id', 'r-echo');
      if (as === 'json') {
        response.setHeader('content-type', 'application/json');
        response.end(
          JSON.stringify({
            Message: `Invalid request: ${sent}`,
            RequestId: 'r-echo',
            Details: null,
          }),
        );
      } else {
        response.setHeader('content-type', 'text/html');
        response.end(`<html><body>Bad gateway for ${sent}</body></html>`);
      }
    });
  };
}

describe('connector proxy: an error answer that repeats the request', () => {
  const standIn = useConnectorStandIn();
  const connector = { clientToken: CLIENT_TOKEN, accessToken: ACCESS_TOKEN };

  it.each([
    { as: 'json' as const, status: 400 },
    { as: 'text' as const, status: 403 },
  ])(
    'answers its $as $status with the connection tokens left out, the rest as the connector sent it',
    async ({ as, status }) => {
      const { url } = await standIn.start(echoingError(status, as), { connector });
      const response = await postToProxy(url, 'restrictions/clear', {
        ServiceId: SERVICE,
        Data: [{ Type: 'Stay' }],
      });
      expect(response.status).toBe(status);
      expect(response.headers.get('request-id')).toBe('r-echo');
      const text = await response.text();
      expect(text).not.toContain(CLIENT_TOKEN);
      expect(text).not.toContain(ACCESS_TOKEN);
      expect(text).toContain('<redacted>');
      // What is not a token stays: the caller still sees what the connector said of its body.
      expect(text).toContain(SERVICE);
      if (as === 'json') expect(JSON.parse(text)).toMatchObject({ RequestId: 'r-echo' });
    },
  );
});
