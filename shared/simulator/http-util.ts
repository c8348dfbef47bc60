import type { IncomingMessage, ServerResponse } from 'node:http';

/** Largest request body the simulator reads (a 1000-item filter is far below it). */
export const SIM_MAX_BODY_BYTES = 5 * 1024 * 1024;

/**
 * Reads a request body as text; undefined when it passes {@link SIM_MAX_BODY_BYTES}. Past the
 * limit the rest is read and dropped, so the client receives the answer instead of a reset.
 */
export async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size <= SIM_MAX_BODY_BYTES) chunks.push(buffer);
  }
  return size > SIM_MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString('utf8');
}

/** The message of the client error a body past {@link SIM_MAX_BODY_BYTES} gets. */
export const SIM_BODY_TOO_LARGE_MESSAGE = `The request body is larger than ${SIM_MAX_BODY_BYTES} bytes.`;

/** Sends a JSON answer with the Request-Id header every response carries (design.md facts). */
export function sendJson(
  response: ServerResponse,
  status: number,
  text: string,
  requestId: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'request-id': requestId,
    ...headers,
  });
  response.end(text);
}

/** The `ConnectorApiExceptionResult` body of an error answer. */
export function errorBody(message: string, requestId: string, details: unknown = null): string {
  return JSON.stringify({ Message: message, RequestId: requestId, Details: details });
}
