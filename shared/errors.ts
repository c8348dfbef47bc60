import type { z } from 'zod';

/** Options common to every project error. */
export interface BridgeErrorOptions {
  cause?: unknown;
  retryable?: boolean;
}

/**
 * Base error of change-bridge. `retryable` tells callers whether repeating the
 * same operation later may succeed.
 */
export class BridgeError extends Error {
  override name = 'BridgeError';
  readonly retryable: boolean;

  constructor(message: string, options: BridgeErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.retryable = options.retryable ?? false;
  }
}

/**
 * Input (a request body, a CLI argument, an environment variable, a stored item)
 * broke its schema. `path` names the first offending field, e.g. `Limitation.Count`.
 */
export class ValidationError extends BridgeError {
  override name = 'ValidationError';
  readonly path: string;
  readonly issues: readonly string[];

  constructor(what: string, issues: readonly ValidationIssue[], options: BridgeErrorOptions = {}) {
    const lines = issues.map((issue) => `${issue.path || '(root)'}: ${issue.message}`);
    super(`${what} is invalid: ${lines.join('; ')}`, options);
    this.path = issues[0]?.path ?? '';
    this.issues = lines;
  }
}

/** One problem found in validated input. */
export interface ValidationIssue {
  path: string;
  message: string;
}

/** Formats a zod path (`['Limitation', 'Count']`, `['Ids', 3]`) as `Limitation.Count`, `Ids[3]`. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  return path
    .map((key, index) =>
      typeof key === 'number' ? `[${key}]` : `${index === 0 ? '' : '.'}${String(key)}`,
    )
    .join('');
}

/**
 * The issues of a zod error, each naming its field. A union that matched none of its members
 * reports the issues of the member that came closest (fewest issues; the first on a tie)
 * instead of one "Invalid input" at the union, so `streamIds: expected array` rather than
 * `(root): Invalid input`.
 * @example fieldIssues(PollJobSchema.safeParse(body).error!)
 */
export function fieldIssues(error: z.ZodError): ValidationIssue[] {
  return unknownKeysFirst(error.issues).flatMap((issue) => issuesAt(issue, []));
}

/**
 * The issues with unknown keys first: an unknown field usually explains the rest (a misspelt
 * or misplaced one, a credential the caller must not send), so it is the one to name. Pure.
 */
export function unknownKeysFirst<T extends { code: string }>(issues: readonly T[]): T[] {
  return [
    ...issues.filter((issue) => issue.code === 'unrecognized_keys'),
    ...issues.filter((issue) => issue.code !== 'unrecognized_keys'),
  ];
}

function issuesAt(issue: z.core.$ZodIssue, prefix: readonly PropertyKey[]): ValidationIssue[] {
  const path = [...prefix, ...issue.path];
  const members = issue.code === 'invalid_union' ? issue.errors.filter((m) => m.length > 0) : [];
  if (members.length > 0) {
    const closest = members.reduce((best, member) => (member.length < best.length ? member : best));
    return closest.flatMap((inner) => issuesAt(inner, path));
  }
  if (issue.code === 'unrecognized_keys')
    return issue.keys.map((key) => ({
      path: formatIssuePath([...path, key]),
      message: 'unknown field',
    }));
  return [{ path: formatIssuePath(path), message: issue.message }];
}

/** Turns a zod error into a {@link ValidationError} that names each offending field. */
export function toValidationError(
  what: string,
  error: z.ZodError,
  cause?: unknown,
): ValidationError {
  return new ValidationError(what, fieldIssues(error), { cause: cause ?? error });
}

/**
 * Parses `value` with `schema`, throwing a {@link ValidationError} naming the field.
 * Environment variables go through `parseEnvironment` (env-issues.ts), which never shows a value.
 * @example parseOrThrow(PollJobSchema, body, 'poll job')
 */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  value: unknown,
  what: string,
): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw toValidationError(what, result.error);
  return result.data;
}

/**
 * A line's worth of what was thrown, for a log: an Error's message (its name when the message
 * is empty), a string as it is, a number, boolean, bigint, symbol, `null` or `undefined` as
 * text; of any other value (an object, a function) only its kind and constructor name, never
 * its contents, which may hold a token. Never throws (a throwing getter or a Proxy included).
 * @example describeThrown(new Error('boom')) // 'boom'
 * @example describeThrown({ accessToken: 'secret' }) // 'a thrown Object, not an Error'
 */
export function describeThrown(value: unknown): string {
  try {
    if (value instanceof Error) {
      const { message } = value;
      return typeof message === 'string' && message !== '' ? message : String(value.name);
    }
    if (typeof value === 'string') return value === '' ? 'an empty string thrown' : value;
    if (value === null || (typeof value !== 'object' && typeof value !== 'function')) {
      return `${String(value)} thrown, not an Error`;
    }
    const maker = (value as { constructor?: unknown }).constructor;
    const name = typeof maker === 'function' && maker.name ? maker.name : typeof value;
    return `a thrown ${name}, not an Error`;
  } catch {
    return 'a thrown value that cannot be described';
  }
}

/**
 * The fields of an Error a log keeps besides its name, message, stack and cause: codes,
 * statuses and request ids to diagnose with. Everything else an error carries may hold a
 * secret (an AWS SDK error's `$response` body, a `SecretString`, a request with its
 * `AccessToken`), so it is left out.
 */
const LOGGABLE_ERROR_FIELDS = [
  'code',
  'status',
  'statusCode',
  'category',
  'retryable',
  'operation',
  'requestId',
  'target',
  'path',
  '$fault',
] as const;

/** The fields of an AWS SDK error's `$metadata` a log keeps. */
const LOGGABLE_METADATA_FIELDS = ['httpStatusCode', 'requestId', 'attempts'] as const;

/** Causes followed below a logged error: deeper ones (or a cycle) are named, not copied. */
const LOGGABLE_CAUSE_DEPTH = 5;

/**
 * A copy of `error` that is safe to log field by field (the Powertools Logger prints an Error's
 * own enumerable fields and its `cause`): its name, message and stack, the string, number and
 * boolean values of a short allow-list of diagnostic fields (`code`, `status`, `category`,
 * `$fault`, `$metadata.httpStatusCode` and `requestId`, ...), and its cause copied the same way,
 * a cause that is not an Error as {@link describeThrown}'s text. Every other field is dropped.
 * Never throws (a throwing getter or a Proxy included).
 * @example logger.error('poll job failed', { error: loggableError(error) })
 */
export function loggableError(error: Error): Error {
  return loggableErrorAt(error, 0);
}

function loggableErrorAt(error: Error, depth: number): Error {
  try {
    const source = error as Error & Record<string, unknown>;
    const copy = new Error(String(error.message)) as Error & Record<string, unknown>;
    copy.name = String(error.name);
    copy.stack = typeof error.stack === 'string' ? error.stack : undefined;
    for (const field of LOGGABLE_ERROR_FIELDS) {
      const value = source[field];
      if (isLoggablePrimitive(value)) copy[field] = value;
    }
    const metadata = source.$metadata;
    if (typeof metadata === 'object' && metadata !== null) {
      const kept: Record<string, unknown> = {};
      for (const field of LOGGABLE_METADATA_FIELDS) {
        const value = (metadata as Record<string, unknown>)[field];
        if (isLoggablePrimitive(value)) kept[field] = value;
      }
      if (Object.keys(kept).length > 0) copy.$metadata = kept;
    }
    const { cause } = error;
    if (cause !== undefined) {
      copy.cause =
        cause instanceof Error && depth < LOGGABLE_CAUSE_DEPTH
          ? loggableErrorAt(cause, depth + 1)
          : describeThrown(cause);
    }
    return copy;
  } catch {
    return new Error(describeThrown(error));
  }
}

function isLoggablePrimitive(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}
