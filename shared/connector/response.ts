import type { z } from 'zod';
import { formatIssuePath } from '../errors.ts';
import { parseRetryAfter } from '../retry-after.ts';
import { ConnectorError, categoryOfStatus } from './errors.ts';
import type { RawResponse } from './http-transport.ts';
import { ConnectorErrorBodySchema } from './records/index.ts';

function headerValue(headers: RawResponse['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/**
 * The `Id` of the record an issue path points into (`Customers[3].Email` → the Id of the
 * fourth customer), so an operator can find the record; undefined when there is none.
 */
function offendingRecordId(body: unknown, path: readonly PropertyKey[]): string | undefined {
  const [collection, index] = path;
  if (typeof collection !== 'string' || typeof index !== 'number') return undefined;
  if (typeof body !== 'object' || body === null) return undefined;
  const records = (body as Record<string, unknown>)[collection];
  if (!Array.isArray(records)) return undefined;
  const record: unknown = records[index];
  if (typeof record !== 'object' || record === null) return undefined;
  const id = (record as Record<string, unknown>).Id;
  return typeof id === 'string' && id.length <= 100 ? id : undefined;
}

/**
 * Turns a raw answer into the parsed response body, or throws the typed {@link ConnectorError}.
 * A 200 whose body is not JSON or breaks the response schema is a `response` error naming the
 * first offending path and, inside a record, that record's Id; unknown fields pass (the service evolves).
 * `prepare`, when given, sees a 200's parsed JSON first and returns the body to validate (see
 * ItemScreen).
 */
export function interpretResponse<S extends z.ZodType>(
  operation: string,
  raw: RawResponse,
  responseSchema: S,
  nowMs: number,
  prepare?: (body: unknown) => unknown,
): z.output<S> {
  const requestId = headerValue(raw.headers, 'request-id');
  const json = parseJson(raw.text);
  if (raw.status === 200) {
    if (!json.ok) {
      throw new ConnectorError(`${operation}: the response body is not JSON`, {
        category: 'response',
        operation,
        status: raw.status,
        requestId,
      });
    }
    const body = prepare ? prepare(json.value) : json.value;
    const parsed = responseSchema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const path = issue ? formatIssuePath(issue.path) : '';
      const recordId = issue ? offendingRecordId(body, issue.path) : undefined;
      const record = recordId === undefined ? '' : ` (record Id ${recordId})`;
      throw new ConnectorError(
        `${operation}: the response breaks the contract at ${path || '(root)'}${record}: ${issue?.message ?? 'invalid'}`,
        {
          category: 'response',
          operation,
          status: raw.status,
          requestId,
          details: { path, ...(recordId === undefined ? {} : { recordId }) },
          cause: parsed.error,
        },
      );
    }
    return parsed.data;
  }
  const body = json.ok ? ConnectorErrorBodySchema.safeParse(json.value) : undefined;
  const fields = body?.success ? body.data : undefined;
  const category = categoryOfStatus(raw.status);
  return throwError(operation, raw, category, fields, requestId, nowMs);
}

function throwError(
  operation: string,
  raw: RawResponse,
  category: ReturnType<typeof categoryOfStatus>,
  fields:
    | {
        Message?: string | null | undefined;
        RequestId?: string | null | undefined;
        Details?: unknown;
      }
    | undefined,
  headerRequestId: string | undefined,
  nowMs: number,
): never {
  const message = fields?.Message ?? `HTTP ${raw.status}`;
  throw new ConnectorError(`${operation} failed (${category}, HTTP ${raw.status}): ${message}`, {
    category,
    operation,
    status: raw.status,
    requestId: fields?.RequestId ?? headerRequestId,
    details: fields?.Details,
    retryAfterMs:
      category === 'rate-limit' ? parseRetryAfter(raw.headers['retry-after'], nowMs) : undefined,
  });
}
