import type { IncomingMessage, ServerResponse } from 'node:http';

/** Largest request body the simulator reads (a 1000-item filter is far below it). */
export const SIM_MAX_BODY_BYTES = 5 * 1024 * 1024;

/** Reads a request body as text; rejects when it passes {@link SIM_MAX_BODY_BYTES}. */
export async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > SIM_MAX_BODY_BYTES) throw new Error('request body too large');
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

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
