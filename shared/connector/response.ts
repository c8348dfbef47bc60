import type { z } from 'zod';
import { formatIssuePath } from '../errors.ts';
import { isJsonObject } from '../json-object.ts';
import { parseRetryAfter } from '../retry-after.ts';
import { acceptedAsIs } from './accepted-as-is.ts';
import { ConnectorError, categoryOfStatus } from './errors.ts';
import type { RawResponse } from './http-transport.ts';
import { ConnectorErrorBodySchema } from './records/index.ts';

function headerValue(headers: RawResponse['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * `value` when it holds more than white space, else undefined: an empty `RequestId` or
 * `Message` of an error body names nothing, and must not hide the `Request-Id` header or the
 * HTTP status.
 */
function nonBlank(value: string | null | undefined): string | undefined {
  return value != null && value.trim() !== '' ? value : undefined;
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

/** A record of a paginated response left out because it breaks its schema (see {@link PageReading}). */
export interface SetAsideRecord {
  /** The first offending field, with the record's place in the page: `Customers[3].Email`. */
  path: string;
  /** The record's `Id`, when it has one. */
  recordId?: string;
  /** What was wrong, naming the operation, the field and the record. */
  error: string;
  /**
   * The record as the connector sent it, when it is a JSON object: unvalidated, so only a field
   * checked by hand may be read from it (as whether it is soft-deleted, see window-pages.ts).
   */
  sent?: Record<string, unknown>;
}

/** How a paginated response's records are read (see {@link interpretResponse}). */
export interface PageReading {
  /** The response field holding the page's records. */
  itemsKey: string;
  /**
   * The place in the page as the connector sent it of `item`, found at `index` of the items
   * validated (a screen may have passed over some before them).
   */
  placeOf?: (item: unknown, index: number) => number;
  /** Told the records set aside, when there are any. */
  onSetAside: (records: SetAsideRecord[]) => void;
}

/**
 * Turns a raw answer into the parsed response body, or throws the typed {@link ConnectorError}.
 * A 200 whose body is not JSON or breaks the response schema is a `response` error naming the
 * first offending path and, inside a record, that record's Id; unknown fields pass (the service evolves).
 * `prepare`, when given, sees a 200's parsed JSON first and returns the body to validate (see
 * ItemScreen). With `page`, a record under its items key that breaks its schema is set aside
 * (left out of the body returned and told to `page.onSetAside`) instead of failing the response:
 * one bad record must not stop its stream (design.md, Bad input). The rest of the body (the
 * items array itself, the Cursor, other fields) is held to the contract as without it.
 */
export function interpretResponse<S extends z.ZodType>(
  operation: string,
  raw: RawResponse,
  responseSchema: S,
  nowMs: number,
  prepare?: (body: unknown) => unknown,
  page?: PageReading,
): z.output<S> {
  const requestId = nonBlank(headerValue(raw.headers, 'request-id'));
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
    // A body the schema takes as it is stands for the parse's output: no copy of each record.
    let parsed: z.ZodSafeParseResult<z.output<S>> = acceptedAsIs(responseSchema, body)
      ? { success: true, data: body as z.output<S> }
      : responseSchema.safeParse(body);
    if (!parsed.success && page) {
      const kept = setAsideBrokenRecords(operation, body, responseSchema, parsed.error, page);
      if (kept) {
        parsed = kept.parsed;
        page.onSetAside(kept.records);
      }
    }
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
  const message = nonBlank(fields?.Message) ?? `HTTP ${raw.status}`;
  throw new ConnectorError(`${operation} failed (${category}, HTTP ${raw.status}): ${message}`, {
    category,
    operation,
    status: raw.status,
    requestId: nonBlank(fields?.RequestId) ?? headerRequestId,
    details: fields?.Details,
    retryAfterMs:
      category === 'rate-limit'
        ? parseRetryAfter(raw.headers['retry-after'], nowMs, { serverDate: raw.headers.date })
        : undefined,
  });
}

/**
 * The body without the records under `page.itemsKey` that break their schema, parsed, and those
 * records; undefined when an issue lies outside them (the page's envelope is broken: the whole
 * response fails). Parsed again after each removal (a record's issues may hide behind another's),
 * at most once per record.
 */
function setAsideBrokenRecords<S extends z.ZodType>(
  operation: string,
  body: unknown,
  responseSchema: S,
  error: z.ZodError,
  page: PageReading,
): { parsed: z.ZodSafeParseResult<z.output<S>>; records: SetAsideRecord[] } | undefined {
  const records: SetAsideRecord[] = [];
  let current = body;
  let issues = error.issues;
  for (;;) {
    if (!isJsonObject(current)) return undefined;
    const items = current[page.itemsKey];
    if (!Array.isArray(items)) return undefined;
    const broken = new Map<number, (typeof issues)[number]>();
    for (const issue of issues) {
      const [key, index] = issue.path;
      if (key !== page.itemsKey || typeof index !== 'number') return undefined;
      if (!broken.has(index)) broken.set(index, issue);
    }
    if (broken.size === 0) return undefined;
    for (const [index, issue] of broken) {
      const place = page.placeOf?.(items[index], index) ?? index;
      const path = formatIssuePath([page.itemsKey, place, ...issue.path.slice(2)]);
      const recordId = offendingRecordId(current, issue.path);
      const record = recordId === undefined ? '' : ` (record Id ${recordId})`;
      const sent: unknown = items[index];
      records.push({
        path,
        ...(recordId === undefined ? {} : { recordId }),
        ...(isJsonObject(sent) ? { sent } : {}),
        error: `${operation}: record set aside: the response breaks the contract at ${path}${record}: ${issue.message}`,
      });
    }
    current = { ...current, [page.itemsKey]: items.filter((_, index) => !broken.has(index)) };
    const parsed = responseSchema.safeParse(current);
    if (parsed.success) return { parsed, records };
    issues = parsed.error.issues;
  }
}
