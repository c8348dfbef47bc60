import { z } from 'zod';

/*
 * zod's own wording (`Too small: expected array to have >=1 items`, `Invalid option: expected
 * one of "baseline"|"emit"`) said as what a field takes, for every message the CLI shows.
 */

/** zod's own message for `issue` (the one it gives when the schema sets none), if any. */
function zodDefaultMessage(issue: z.core.$ZodIssue): string | undefined {
  const made = z.config().localeError?.(issue as unknown as z.core.$ZodRawIssue);
  return typeof made === 'string' ? made : (made?.message ?? undefined);
}

/** The end of zod's `invalid_type` message, which depends on the input an issue may not carry. */
const RECEIVED = /, received \S+$/;

/** True when `issue` carries zod's own wording rather than its schema's message. */
function isZodWording(issue: z.core.$ZodIssue): boolean {
  const zodOwn = zodDefaultMessage(issue);
  if (zodOwn === undefined) return false;
  if (issue.code !== 'invalid_type') return issue.message === zodOwn;
  return issue.message.replace(RECEIVED, '') === zodOwn.replace(RECEIVED, '');
}

/**
 * `values` as alternatives: `a`, `a or b`, `one of a, b or c`. Pure.
 * @example alternatives(['baseline', 'emit']) // 'baseline or emit'
 */
export function alternatives(values: readonly string[]): string {
  if (values.length <= 2) return values.join(' or ');
  return `one of ${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;
}

/** A bound of a size or value, said for what it bounds (`origin`: string, array, number…). */
function boundText(
  word: 'at least' | 'at most',
  exclusiveWord: string,
  limit: unknown,
  inclusive: boolean | undefined,
  origin: string,
): string {
  const n = Number(limit);
  const bound = inclusive === false ? exclusiveWord : word;
  if (origin === 'string') {
    if (word === 'at least' && n === 1 && bound === word) return 'must not be empty';
    return `must be ${bound} ${n} character${n === 1 ? '' : 's'}`;
  }
  if (origin === 'array' || origin === 'set') {
    if (word === 'at least' && n === 1 && bound === word) return 'must list at least one value';
    return `must list ${bound} ${n} value${n === 1 ? '' : 's'}`;
  }
  return `must be ${bound} ${n}`;
}

const TYPE_NAMES: Readonly<Record<string, string>> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
};

const FORMAT_NAMES: Readonly<Record<string, string>> = {
  uuid: 'a uuid',
  guid: 'a uuid',
  email: 'an email address',
  url: 'a URL',
  datetime: 'an ISO 8601 date-time',
  date: 'a date (YYYY-MM-DD)',
};

/**
 * What `issue` says to a user: its schema's own message, or, where it carries zod's wording
 * (`Too small: expected array to have >=1 items`, `Invalid option: expected one of
 * "baseline"|"emit"`), what the field takes in plain words. Pure.
 * @example plainMessage(z.enum(['baseline', 'emit']).safeParse('x').error!.issues[0]!) // 'must be baseline or emit'
 */
export function plainMessage(issue: z.core.$ZodIssue): string {
  if (!isZodWording(issue)) return issue.message;
  switch (issue.code) {
    case 'too_small':
      return boundText('at least', 'more than', issue.minimum, issue.inclusive, issue.origin);
    case 'too_big':
      return boundText('at most', 'less than', issue.maximum, issue.inclusive, issue.origin);
    case 'invalid_value':
      return `must be ${alternatives(issue.values.map(String))}`;
    case 'invalid_type':
      return issue.message.endsWith('received undefined')
        ? 'is required'
        : `must be ${TYPE_NAMES[issue.expected] ?? issue.expected}`;
    case 'invalid_format':
      return FORMAT_NAMES[issue.format]
        ? `must be ${FORMAT_NAMES[issue.format]}`
        : 'is not in the expected form';
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`;
    case 'unrecognized_keys':
      return 'unknown field';
    default:
      return 'is invalid';
  }
}

/** `issue` with its message in plain words ({@link plainMessage}), those of a union's members too. */
function plainIssue(issue: z.core.$ZodIssue): z.core.$ZodIssue {
  const message = plainMessage(issue);
  if (issue.code !== 'invalid_union') return { ...issue, message };
  const errors = issue.errors.map((member) => member.map(plainIssue));
  return { ...issue, message, errors } as z.core.$ZodIssue;
}

/**
 * A copy of `error` whose issues say what their fields take in plain words
 * ({@link plainMessage}), for any formatting of zod errors (firstInputIssue, fieldIssues). Pure.
 */
export function withPlainMessages(error: z.ZodError): z.ZodError {
  return new z.ZodError(error.issues.map(plainIssue));
}
