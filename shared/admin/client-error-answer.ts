import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { adminResponseHeaders, serializeAdminBody } from './response-body.ts';

/**
 * How long a connection answered for a request node:http refused stays open for the client to
 * read the answer: closed at once, the bytes it still sends would make the kernel reset the
 * connection and the client could lose the answer; left open, a client that never closes its
 * side would hold the socket for good.
 */
const CLIENT_ERROR_LINGER_MS = 2000;

/** What node:http reports a request it could not take for, by its error code. */
const CLIENT_ERRORS: Readonly<Record<string, { status: number; error: string }>> = {
  HPE_HEADER_OVERFLOW: { status: 431, error: 'the request headers are too large' },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { status: 413, error: 'a chunk extension is too large' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, error: 'the request was not received in time' },
};

const BAD_REQUEST = { status: 400, error: 'the request is not valid HTTP/1.1' };

/**
 * The raw HTTP/1.1 answer to a request node:http refuses before any route sees it (its
 * `clientError`: a malformed request, headers too large, a request not received in time), with
 * the headers of every admin answer ({@link adminResponseHeaders}), a JSON `{error}` that names
 * the kind of fault only (never the parser's message or the bytes received), and
 * `connection: close`.
 * @example clientErrorAnswer('HPE_HEADER_OVERFLOW') // 'HTTP/1.1 431 Request Header Fields Too Large\r\n…'
 */
export function clientErrorAnswer(code: string | undefined): string {
  const { status, error } = (code !== undefined && CLIENT_ERRORS[code]) || BAD_REQUEST;
  const response = { status, body: { error } };
  const { contentType, text } = serializeAdminBody(response)!;
  const headers = {
    ...adminResponseHeaders(response),
    'content-type': contentType,
    'content-length': String(Buffer.byteLength(text)),
    connection: 'close',
  };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${lines.join('')}\r\n${text}`;
}

/**
 * The `clientError` listener: node:http's own answers (400, 408, 413, 431) carry only a status
 * line; these carry the headers and JSON body of every admin answer ({@link clientErrorAnswer}),
 * then the connection closes. A request refused behind one read whole and still being answered
 * (pipelined) is answered after it, in order, as HTTP/1.1 requires (node:http answered it at
 * once, in the place of the earlier answer); a connection already sending an answer, or that the
 * client reset, is cut. node:http reports the bytes that follow on a refused connection as
 * errors again: ignored.
 */
export function answerClientError(
  answering: ReadonlyMap<Duplex, { request: IncomingMessage; response: ServerResponse }>,
): (error: NodeJS.ErrnoException, socket: Duplex) => void {
  const answered = new WeakSet<Duplex>();
  const answer = (socket: Duplex, code: string | undefined) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(clientErrorAnswer(code));
    const linger = setTimeout(() => socket.destroy(), CLIENT_ERROR_LINGER_MS);
    linger.unref();
    socket.once('close', () => clearTimeout(linger));
  };
  return (error, socket) => {
    if (answered.has(socket)) return;
    answered.add(socket);
    const current = answering.get(socket);
    if (error.code === 'ECONNRESET' || current?.response.headersSent) socket.destroy();
    else if (current?.request.complete)
      current.response.once('finish', () => answer(socket, error.code));
    else answer(socket, error.code);
  };
}
