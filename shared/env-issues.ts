import type { z } from 'zod';
import { CONFIGURATION } from './configuration-error.ts';
import { fieldIssues, ValidationError, type ValidationIssue } from './errors.ts';
import { withPlainMessages } from './plain-message.ts';

/**
 * `message` about an environment variable set to `value`, with the value's length. Messages
 * about a variable do not show its value: a value in the wrong variable is often a secret (a
 * token pasted into POLL_INTERVAL), and the message reaches the terminal of `start` and a
 * Lambda's log. Only a value checked to be harmless may be shown: a port's digits (isPortDigits).
 * The length makes a value far too long for the variable stand out. Unchanged when the
 * variable is unset. Pure.
 * @example withValueLength('must be on or off', 'maybe') // 'must be on or off; the value set has 5 characters'
 */
export function withValueLength(message: string, value: string | undefined): string {
  if (value === undefined) return message;
  if (value === '') return `${message}; the value set is empty`;
  return `${message}; the value set has ${value.length} character${value.length === 1 ? '' : 's'}`;
}

/**
 * True when `value` is a port's digits (1 to 5): harmless to show, it cannot hold a secret. The
 * one rule for a port's value, in a variable or a flag: a message about a value of digits names
 * it once and gives no length; any other value is described by its length only
 * ({@link withValueLength}). Pure.
 * @example isPortDigits('6000') // true
 */
export function isPortDigits(value: string | undefined): value is string {
  return value !== undefined && /^\d{1,5}$/.test(value);
}

/** The value of variable `name` in `env` (a key of Object.prototype is no variable). Pure. */
export function variableOf(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
): string | undefined {
  return Object.hasOwn(env, name) ? env[name] : undefined;
}

/**
 * The issues of a zod error over `env`, each naming its variable in plain words (`must be
 * baseline or emit`, not zod's `Invalid option: …`); an issue about a variable as
 * a whole (not one entry of a list) says the length of its value ({@link withValueLength}).
 * The schema's own messages must not show the value either. Pure.
 */
export function environmentIssues(
  error: z.ZodError,
  env: Readonly<Record<string, string | undefined>>,
): ValidationIssue[] {
  return fieldIssues(withPlainMessages(error)).map((issue) => ({
    path: issue.path,
    message: withValueLength(issue.message, variableOf(env, issue.path)),
  }));
}

/**
 * Parses environment variables with `schema`, as every composition root reads them.
 * @throws ValidationError (`configuration is invalid: POLL_INTERVAL: …`) naming each offending
 * variable without showing its value ({@link environmentIssues}).
 * @example parseEnvironment(PollEnvSchema, process.env)
 */
export function parseEnvironment<S extends z.ZodType>(
  schema: S,
  env: Readonly<Record<string, string | undefined>>,
  what = CONFIGURATION,
): z.output<S> {
  const result = schema.safeParse(env);
  if (!result.success)
    throw new ValidationError(what, environmentIssues(result.error, env), { cause: result.error });
  return result.data;
}
