import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import type { HttpRequest, HttpResponse, RequestHandler, RequestSigner } from '@smithy/types';

/**
 * The headers dynalite asks of every request (it checks their form, never the signature):
 * sent in place of a SigV4 signature by {@link unsignedLocalSigner}.
 */
export const LOCAL_AUTHORIZATION = {
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

/** A DynamoDB request as dynalite's listener reads it: headers lower-cased, body as bytes. */
export interface DynaliteRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Uint8Array;
}

/** dynalite's answer to a {@link DynaliteRequest}. */
export interface DynaliteAnswer {
  statusCode: number;
  headers: Record<string, string>;
  /** The JSON body as dynalite wrote it. */
  body: string;
}

/**
 * Hands one request to dynalite's own request listener on `server`, without a socket, and
 * collects its answer: the listener cannot tell it from an HTTP request.
 */
export function answerDynaliteRequest(
  server: Server,
  request: DynaliteRequest,
): Promise<DynaliteAnswer> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = {};
    const response: CollectedResponse = {
      statusCode: 200,
      setHeader(name, value) {
        headers[name.toLowerCase()] = String(value);
      },
      end(body = '') {
        resolve({ statusCode: response.statusCode, headers, body });
      },
    };
    const incoming = Object.assign(new EventEmitter(), {
      method: request.method,
      url: request.path,
      headers: request.headers,
    });
    server.emit('request', incoming, response);
    if (request.body.length > 0)
      incoming.emit(
        'data',
        Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength),
      );
    incoming.emit('end');
  });
}

/** An SDK request in the form dynalite's listener reads. */
export function dynaliteRequestOf(request: HttpRequest): DynaliteRequest {
  return {
    method: request.method,
    path: request.path,
    headers: Object.fromEntries(
      Object.entries(request.headers).map(([name, value]) => [name.toLowerCase(), value]),
    ),
    body: requestBytes(request.body),
  };
}

/** The error a closed local store fails a call with, as a refused socket would. */
export function closedStoreError(): Error {
  return Object.assign(new Error('connect ECONNREFUSED: the local DynamoDB is closed'), {
    code: 'ECONNREFUSED',
  });
}

/** dynalite servers started without a port (see startDynaliteServer), until they are closed. */
const openWithoutPort = new WeakSet<Server>();

/**
 * Notes whether `server`, which listens on no port, is open: its in-process answers fail once it
 * is not, as a refused socket would.
 */
export function noteOpenWithoutPort(server: Server, open: boolean): void {
  if (open) openWithoutPort.add(server);
  else openWithoutPort.delete(server);
}

/** Whether dynalite's `server` answers: listening on its port, or open without one. */
export function dynaliteOpen(server: Server): boolean {
  return server.listening || openWithoutPort.has(server);
}

/** Hands one request to dynalite and returns its answer (in this thread or another). */
export type AnswerDynalite = (request: DynaliteRequest) => Promise<DynaliteAnswer>;

/**
 * Answers requests through dynalite's own request listener on `server`, in this thread,
 * without a socket: the same validation, conditions and storage as over HTTP (the listener
 * cannot tell), minus the HTTP client and server work on both sides, which took about a fifth
 * of the local runtime's CPU when a thousand connections poll. A server started with a port
 * keeps listening on it for anything else (tests, tools).
 */
export function dynaliteInProcessAnswer(server: Server): AnswerDynalite {
  return async (request) => {
    // As a socket would be refused: a closed store must fail the call, not the process.
    if (!dynaliteOpen(server)) throw closedStoreError();
    return answerDynaliteRequest(server, request);
  };
}

/** An SDK request handler that passes each request to `answer` (no socket, no signature). */
export function dynaliteRequestHandler(
  answer: AnswerDynalite,
): RequestHandler<HttpRequest, HttpResponse> {
  return {
    async handle(request: HttpRequest) {
      const answered = await answer(dynaliteRequestOf(request));
      return {
        response: {
          statusCode: answered.statusCode,
          headers: answered.headers,
          body: Buffer.from(answered.body, 'utf8'),
        },
      };
    },
  };
}

/**
 * The request body as bytes. The SDK's JSON body is a Uint8Array subclass whose `valueOf` is a
 * string (with a warning), which `Buffer.from(body)` would call: its bytes are viewed instead.
 */
function requestBytes(body: unknown): Uint8Array {
  if (body instanceof Uint8Array)
    return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  return new Uint8Array(0);
}
