import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Context, SQSEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:main';

const saved = { ...process.env };
const secrets = mockClient(SecretsManagerClient);
beforeAll(() => {
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    STATE_TABLE_NAME: 'state',
    POLL_JOB_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/poll-jobs',
    CONNECTION_SECRET_ARNS: JSON.stringify({ main: SECRET_ARN }),
    POWERTOOLS_METRICS_NAMESPACE: 'ChangeBridge',
    POWERTOOLS_SERVICE_NAME: 'poller',
  });
});
afterAll(() => {
  secrets.restore();
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  Object.assign(process.env, saved);
});

const job = (messageId: string): SQSEvent['Records'][number] => ({
  messageId,
  receiptHandle: 'r',
  body: JSON.stringify({ connectionId: 'main', streamIds: ['main:customer'] }),
  attributes: {
    ApproximateReceiveCount: '1',
    SentTimestamp: '0',
    SenderId: 'x',
    ApproximateFirstReceiveTimestamp: '0',
  },
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:poll-jobs',
  awsRegion: 'us-east-1',
});

describe('functions/poller handler', () => {
  it('counts a poll job that fails (an empty connection secret) in PollFailures, the alarm’s metric', async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: '' });
    const printed: string[] = [];
    // Powertools writes its logs and EMF documents to the process's streams.
    const log = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
      printed.push(...String(chunk).split('\n'));
      return true;
    });
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const { handler } = await import('../../functions/poller.ts');
      const context = { getRemainingTimeInMillis: () => 120_000, awsRequestId: 'req' } as Context;
      const answer = await handler({ Records: [job('m-1')] }, context);
      expect(answer.batchItemFailures).toEqual([{ itemIdentifier: 'm-1' }]);
    } finally {
      log.mockRestore();
      vi.restoreAllMocks();
    }
    const emf = printed.flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
    expect(emf.some((doc) => doc.PollFailures === 1)).toBe(true);
  });
});
