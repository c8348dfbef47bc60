import { STATUS_CODES } from 'node:http';
import { adminResponseHeaders, serializeAdminBody } from './response-body.ts';

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
