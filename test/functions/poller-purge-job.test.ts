import {
  DeleteCommand,
  DynamoDBDocumentClient,
  PutCommand,
  QueryCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { toSqsRecord } from '../../shared/local/event-source-loop.ts';

const saved = { ...process.env };
const documents = mockClient(DynamoDBDocumentClient);
beforeAll(() => {
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    STATE_TABLE_NAME: 'state',
    POLL_JOB_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/poll-jobs',
    POWERTOOLS_METRICS_NAMESPACE: 'ChangeBridge',
    POWERTOOLS_SERVICE_NAME: 'poller',
  });
  delete process.env.CONNECTION_SECRET_ARNS;
});
afterAll(() => {
  documents.restore();
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  Object.assign(process.env, saved);
});

describe('functions/poller handler with a purge job', () => {
  it('runs the purge of removed streams under its lease and answers the job done', async () => {
    // Nothing noted removed: the purge reads the notes once and ends.
    documents.on(QueryCommand).resolves({ Items: [] });
    documents.on(PutCommand).resolves({});
    documents.on(DeleteCommand).resolves({});
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      const { handler } = await import('../../functions/poller.ts');
      const context = { getRemainingTimeInMillis: () => 120_000, awsRequestId: 'req' } as Context;
      const record = toSqsRecord(
        {
          MessageId: 'm-1',
          ReceiptHandle: 'r',
          Body: JSON.stringify({ purge: 'removed-streams' }),
        },
        'arn:aws:sqs:us-east-1:000000000000:poll-jobs',
        'us-east-1',
      );
      const answer = await handler({ Records: [record] }, context);
      expect(answer.batchItemFailures).toEqual([]);
    } finally {
      vi.restoreAllMocks();
    }
    const queried = documents.commandCalls(QueryCommand).map((c) => c.args[0].input);
    expect(queried.map((input) => input.ExpressionAttributeValues?.[':pk'])).toEqual([
      'REMOVED_STREAMS',
    ]);
    const leases = documents.commandCalls(PutCommand).map((c) => c.args[0].input.Item);
    expect(leases).toMatchObject([
      { pk: 'STREAM#purge:removed-streams', sk: 'LEASE', owner: 'req' },
    ]);
    const released = documents.commandCalls(DeleteCommand).map((c) => c.args[0].input.Key);
    expect(released).toEqual([{ pk: 'STREAM#purge:removed-streams', sk: 'LEASE' }]);
  });
});
