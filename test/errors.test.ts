import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fieldIssues, parseOrThrow } from '../shared/errors.ts';
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
