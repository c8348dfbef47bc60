import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import type { HttpRequest, HttpResponse, RequestHandler, RequestSigner } from '@smithy/types';

/**
 * The headers dynalite asks of every request (it checks their form, never the signature):
 * sent in place of a SigV4 signature by {@link unsignedLocalSigner}.
 */
const LOCAL_AUTHORIZATION = {
  authorization:
    'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=local',
  'x-amz-date': '20260101T000000Z',
};

/**
 * A signer for a client of the local dynalite: adds the header form dynalite checks and skips
 * the SigV4 arithmetic (two HMAC chains and a hash per request), which the local store never
 * verifies and the local runtime would otherwise spend a few percent of its CPU on.
 */
export const unsignedLocalSigner: RequestSigner = {
  async sign(request) {
    Object.assign(request.headers, LOCAL_AUTHORIZATION);
    return request;
  },
};

/** What dynalite's request listener uses of Node's response object. */
interface CollectedResponse {
  statusCode: number;
  setHeader(name: string, value: string | number): void;
  end(body?: string): void;
}

/**
 * An SDK request handler that hands each request to dynalite's own request listener in this
 * process, without a socket: the same validation, conditions and storage as over HTTP (the
 * listener cannot tell), minus the HTTP client and server work on both sides, which took about
 * a fifth of the local runtime's CPU when a thousand connections poll. The server keeps
 * listening on its port for anything else (tests, tools).
 */
export function dynaliteInProcessHandler(
  server: Server,
): RequestHandler<HttpRequest, HttpResponse> {
  return {
    handle(request: HttpRequest) {
      // As a socket would be refused: a closed store must fail the call, not the process.
      if (!server.listening)
        return Promise.reject(
          Object.assign(new Error('connect ECONNREFUSED: the local DynamoDB is closed'), {
            code: 'ECONNREFUSED',
          }),
        );
      return new Promise((resolve) => {
        const headers: Record<string, string> = {};
        const response: CollectedResponse = {
          statusCode: 200,
          setHeader(name, value) {
            headers[name.toLowerCase()] = String(value);
          },
          end(body = '') {
            const answer: HttpResponse = {
              statusCode: response.statusCode,
              headers,
              body: Buffer.from(body, 'utf8'),
            };
            resolve({ response: answer });
          },
        };
        const incoming = Object.assign(new EventEmitter(), {
          method: request.method,
          url: request.path,
          headers: Object.fromEntries(
            Object.entries(request.headers).map(([name, value]) => [name.toLowerCase(), value]),
          ),
        });
        server.emit('request', incoming, response);
        const body = requestBytes(request.body);
        if (body.length > 0) incoming.emit('data', body);
        incoming.emit('end');
      });
    },
  };
}

/**
 * The request body as bytes. The SDK's JSON body is a Uint8Array subclass whose `valueOf` is a
 * string (with a warning), which `Buffer.from(body)` would call: its bytes are viewed instead.
 */
function requestBytes(body: unknown): Buffer {
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  return Buffer.alloc(0);
}
