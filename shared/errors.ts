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

/** Turns a zod error into a {@link ValidationError} that names each offending field. */
export function toValidationError(
  what: string,
  error: z.ZodError,
  cause?: unknown,
): ValidationError {
  const issues = error.issues.map((issue) => ({
    path: formatIssuePath(issue.path),
    message: issue.message,
  }));
  return new ValidationError(what, issues, { cause: cause ?? error });
}

/**
 * Parses `value` with `schema`, throwing a {@link ValidationError} naming the field.
 * @example parseOrThrow(ConfigSchema, process.env, 'environment')
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
