import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fieldIssues } from '../shared/errors.ts';
import { alternatives, plainMessage, withPlainMessages } from '../shared/plain-message.ts';

/** The first issue `schema` finds in `value`. */
function issueOf(schema: z.ZodType, value: unknown): z.core.$ZodIssue {
  const issue = schema.safeParse(value).error?.issues[0];
  if (!issue) throw new Error('expected an issue');
  return issue;
}

describe('plainMessage', () => {
  it.each([
    ['an empty text', z.string().min(1), '', 'must not be empty'],
    ['a text too long', z.string().max(3), 'abcd', 'must be at most 3 characters'],
    ['a text too short', z.string().min(3), 'ab', 'must be at least 3 characters'],
    ['an empty list', z.array(z.string()).min(1), [], 'must list at least one value'],
    ['a list too long', z.array(z.string()).max(2), ['a', 'b', 'c'], 'must list at most 2 values'],
    ['a number too small', z.number().min(1), 0, 'must be at least 1'],
    ['a number not positive', z.number().positive(), 0, 'must be more than 0'],
    ['a number too big', z.number().max(10), 11, 'must be at most 10'],
    ['one of two options', z.enum(['baseline', 'emit']), 'x', 'must be baseline or emit'],
    ['one of three options', z.enum(['a', 'b', 'c']), 'x', 'must be one of a, b or c'],
    ['a missing field', z.object({ a: z.string() }), {}, 'is required'],
    ['a number of the wrong type', z.number(), 'x', 'must be a number'],
    ['a boolean of the wrong type', z.boolean(), 'yes', 'must be true or false'],
    ['a uuid', z.uuid(), 'x', 'must be a uuid'],
    ['an unknown field', z.object({}).strict(), { x: 1 }, 'unknown field'],
  ])('says what %s takes instead of zod’s words', (_what, schema, value, expected) => {
    expect(plainMessage(issueOf(schema, value))).toBe(expected);
  });

  it('keeps a message the schema sets, whatever its check', () => {
    const schema = z.array(z.string()).min(1, { error: 'give at least one pattern' });
    expect(plainMessage(issueOf(schema, []))).toBe('give at least one pattern');
    const refined = z.string().refine(() => false, { message: 'is not an absolute URL' });
    expect(plainMessage(issueOf(refined, 'x'))).toBe('is not an absolute URL');
  });
});

describe('alternatives', () => {
  it('lists one, two or more values as alternatives', () => {
    expect(alternatives(['a'])).toBe('a');
    expect(alternatives(['a', 'b'])).toBe('a or b');
    expect(alternatives(['a', 'b', 'c', 'd'])).toBe('one of a, b, c or d');
  });
});

describe('withPlainMessages', () => {
  it('says every issue in plain words, those inside a union too', () => {
    const schema = z.object({
      count: z.number().min(1),
      mode: z.union([z.object({ a: z.string(), b: z.string() }), z.object({ on: z.boolean() })]),
    });
    const error = schema.safeParse({ count: 0, mode: { on: 'yes' } }).error!;
    expect(fieldIssues(withPlainMessages(error))).toEqual([
      { path: 'count', message: 'must be at least 1' },
      { path: 'mode.on', message: 'must be true or false' },
    ]);
  });
});
