import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeThrown, fieldIssues, loggableError, parseOrThrow } from '../shared/errors.ts';
import { PollJobSchema } from '../shared/polling/poll-job.ts';

describe('fieldIssues', () => {
  it('names the field of the union member that came closest, not the union', () => {
    expect(() =>
      parseOrThrow(PollJobSchema, { connectionId: 'main', streamIds: 'nope' }, 'poll job'),
    ).toThrow('poll job is invalid: streamIds: Invalid input: expected array, received string');
  });

  it('keeps the path down to a nested union, and a plain issue as it is', () => {
    const Schema = z.object({
      jobs: z.array(
        z.union([z.object({ x: z.string() }), z.object({ y: z.number(), z: z.number() })]),
      ),
      count: z.number(),
    });
    const result = Schema.safeParse({ jobs: [{ x: 'ok' }, { x: 1 }], count: 'two' });
    expect(fieldIssues(result.error!)).toEqual([
      { path: 'jobs[1].x', message: 'Invalid input: expected string, received number' },
      { path: 'count', message: 'Invalid input: expected number, received string' },
    ]);
  });
});

describe('describeThrown', () => {
  it('never throws, whatever was thrown, and never prints the contents of an object', () => {
    const getterThrows = Object.defineProperty(new Error('x'), 'message', {
      get: () => {
        throw new Error('no message');
      },
    });
    const proxy = new Proxy(
      {},
      {
        get: () => {
          throw new Error('trap');
        },
        getPrototypeOf: () => {
          throw new Error('trap');
        },
      },
    );
    expect(describeThrown(getterThrows)).toBe('a thrown value that cannot be described');
    expect(describeThrown(proxy)).toBe('a thrown value that cannot be described');
    expect(describeThrown(Object.create(null))).toBe('a thrown object, not an Error');
    expect(describeThrown(Symbol('s'))).toBe('Symbol(s) thrown, not an Error');
    expect(describeThrown(10n)).toBe('10 thrown, not an Error');
    expect(describeThrown('')).toBe('an empty string thrown');
    expect(describeThrown(new TypeError(''))).toBe('TypeError');
    expect(describeThrown({ token: 'secret' })).not.toContain('secret');
  });
});

describe('loggableError', () => {
  it('keeps name, message, stack and the allowed fields of an error and its causes, nothing else', () => {
    const inner = Object.assign(new Error('denied', { cause: { token: 'tok-secret-1' } }), {
      name: 'AccessDeniedException',
      $metadata: { httpStatusCode: 403, requestId: 'r-1', extra: 'tok-secret-2' },
      $response: { body: 'tok-secret-3' },
      code: { nested: 'tok-secret-4' },
    });
    const outer = Object.assign(new Error('failed', { cause: inner }), {
      status: 500,
      body: 'tok-secret-5',
    });
    const copy = loggableError(outer) as Error & Record<string, unknown>;
    expect(copy).toMatchObject({ name: 'Error', message: 'failed', status: 500 });
    expect(copy.stack).toBe(outer.stack);
    expect(copy).not.toHaveProperty('body');
    const cause = copy.cause as Error & Record<string, unknown>;
    expect(cause).toMatchObject({ name: 'AccessDeniedException', message: 'denied' });
    expect(cause.$metadata).toEqual({ httpStatusCode: 403, requestId: 'r-1' });
    expect(cause).not.toHaveProperty('$response');
    expect(cause).not.toHaveProperty('code');
    expect(cause.cause).toBe('a thrown Object, not an Error');
  });

  it('never throws, and stops at a cycle of causes', () => {
    const getterThrows = Object.defineProperty(new Error('x'), 'message', {
      get: () => {
        throw new Error('no message');
      },
    });
    expect(loggableError(getterThrows).message).toBe('a thrown value that cannot be described');
    const looped = new Error('a');
    looped.cause = looped;
    let depth = 0;
    for (let at: unknown = loggableError(looped); at instanceof Error; at = at.cause) depth++;
    expect(depth).toBeLessThan(10);
  });
});
