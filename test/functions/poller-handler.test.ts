import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { toSqsRecord } from '../../shared/local/event-source-loop.ts';

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

/** A poll job as Lambda hands it over (the local event source builds records the same way). */
const job = (messageId: string) =>
  toSqsRecord(
    {
      MessageId: messageId,
      ReceiptHandle: 'r',
      Body: JSON.stringify({ connectionId: 'main', streamIds: ['main:customer'] }),
    },
    'arn:aws:sqs:us-east-1:000000000000:poll-jobs',
    'us-east-1',
  );

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
