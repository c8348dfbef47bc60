import { describe, expect, it } from 'vitest';
import { readPollLambdaEnv } from '../../functions/poll-env.ts';

const env = {
  STATE_TABLE_NAME: 'state',
  POLL_JOB_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/poll-jobs',
  CONNECTION_IDS: 'main',
  CONNECTION_SECRET_PREFIX: 'change-bridge/prod',
};

describe('the connections the stack defines (secretIds)', () => {
  it('hold the stack’s connections alone: a stored connection named like an object’s built-in property is not one of them', () => {
    const { secretIds } = readPollLambdaEnv(env, Date.UTC(2026, 0, 1));
    expect(Object.keys(secretIds)).toEqual(['main']);
    expect(secretIds.main).toBe('change-bridge/prod/connections/main');
    // The planner, the poller, the clients and the write-through look a connection id up here
    // to tell the stack's from stored ones: these stored ids must not be found.
    for (const id of ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__'])
      expect(secretIds[id], id).toBeUndefined();
  });
});
