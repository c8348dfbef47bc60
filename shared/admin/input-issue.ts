import type { z } from 'zod';
import { formatIssuePath, unknownKeysFirst } from '../errors.ts';

/** The field invalid route input is about, and what is wrong with it. */
export interface InputIssue {
  field: string;
  message: string;
}

/**
 * The first issue of invalid route input, as the admin API's 400 answers name it (an unknown
 * key before any other): the field's path (or the unknown key), else `location` (`query`,
 * `body`). Pure.
 * @example firstInputIssue(error, 'query') // { field: 'limit', message: 'must be a whole number from 1 to 1000' }
 */
export function firstInputIssue(error: z.ZodError, location: string): InputIssue {
  const [issue] = unknownKeysFirst(error.issues);
  if (!issue) return { field: location, message: 'invalid' };
  const keys = issue.code === 'unrecognized_keys' ? [issue.keys[0] ?? ''] : [];
  return { field: formatIssuePath([...issue.path, ...keys]) || location, message: issue.message };
}
