import { DecryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DynamoDbConnectionStore } from '../../shared/connections/dynamodb-connection-store.ts';
import { type LocalDynamoDb, startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { toSqsRecord } from '../../shared/local/event-source-loop.ts';
import { DynamoDbStateStore } from '../../shared/state/dynamodb-state-store.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';
import { pollerEnvironment, setEnvironment } from './support/poller-environment.ts';

/*
 * In AWS a stored connection's AccessToken is opened with KMS Decrypt in the poller. When KMS
 * refuses (the key disabled or scheduled for deletion, a grant taken away, another key), the
 * operator looks at `streams list` (the stream states) to see why the hotel is not polled.
 */

const TABLE = 'poller-unopened-token';
const TOKEN_KEY_ARN = 'arn:aws:kms:us-east-1:000000000000:key/bridge-tokens';
const DEPLOYMENT_SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:deployment';

let restoreEnvironment = () => {};
const secrets = mockClient(SecretsManagerClient);
const kms = mockClient(KMSClient);
let dynamo: LocalDynamoDb;

beforeAll(async () => {
  dynamo = await startLocalDynamoDb({ transport: 'http' });
  await createStateTable(dynamo.client, TABLE);
  restoreEnvironment = setEnvironment(
    pollerEnvironment(dynamo.endpoint, TABLE, {
      CONNECTION_SECRET_ARNS: '{}',
      DEPLOYMENT_SECRET_ARN,
      CONNECTION_TOKEN_KEY_ARN: TOKEN_KEY_ARN,
      POLL_ENTITIES: 'customer,resource',
    }),
  );
});
afterAll(async () => {
  secrets.restore();
  kms.restore();
  restoreEnvironment();
  await dynamo?.close();
});

describe('functions/poller with a stored token KMS will not open', () => {
  it('records why on each stream of the job, and backs off instead of failing every run', async () => {
    secrets.on(GetSecretValueCommand).resolves({
      SecretString: JSON.stringify({ baseUrl: 'http://127.0.0.1:9', clientToken: 'client-token' }),
    });
    kms.on(DecryptCommand).rejects(
      Object.assign(new Error('arn:aws:kms:…:key/bridge-tokens is disabled.'), {
        name: 'DisabledException',
        $fault: 'client',
        $metadata: { httpStatusCode: 400, requestId: 'kms-request-1' },
        // What an SDK error may carry besides: the raw answer, and what was sent.
        $response: { body: '{"Plaintext":"tok-secret-kms"}' },
        CiphertextBlob: 'tok-secret-blob',
      }),
    );
    const connections = new DynamoDbConnectionStore({ client: dynamo.client, tableName: TABLE });
    await connections.create({
      id: 'hotel-1',
      enabled: true,
      createdAt: '2026-11-01T00:00:00.000Z',
      accessToken: {
        v: 1,
        wrappedKey: 'd3JhcHBlZA==',
        iv: 'aXY=',
        tag: 'dGFn',
        ciphertext: 'Y3Q=',
      },
    });
    const record = toSqsRecord(
      {
        MessageId: 'm-1',
        ReceiptHandle: 'r',
        Body: JSON.stringify({
          connectionId: 'hotel-1',
          streamIds: ['hotel-1:customer', 'hotel-1:resource'],
        }),
      },
      'arn:aws:sqs:us-east-1:000000000000:poll-jobs',
      'us-east-1',
    );
    const printed: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
      printed.push(String(chunk));
      return true;
    });
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: unknown) => {
      printed.push(String(chunk));
      return true;
    });
    type Poller = typeof import('../../functions/poller.ts');
    let answer: Awaited<ReturnType<Poller['handler']>>;
    try {
      // An instance of the handler's module of its own, built from this file's environment (the
      // files of a worker share loaded modules); what it imports is shared as usual.
      const modulePath = '../../functions/poller.ts?unopened-token';
      const { handler } = (await import(/* @vite-ignore */ modulePath)) as Poller;
      const context = { getRemainingTimeInMillis: () => 120_000, awsRequestId: 'req' } as Context;
      answer = await handler({ Records: [record] }, context);
    } finally {
      vi.restoreAllMocks();
    }
    const state = new DynamoDbStateStore({ client: dynamo.client, tableName: TABLE });
    for (const streamId of ['hotel-1:customer', 'hotel-1:resource']) {
      const stream = await state.getStream(streamId);
      expect(stream?.lastError).toContain('AccessToken');
      expect(stream?.lastError).toContain('DisabledException');
      expect(stream?.consecutiveFailures).toBe(1);
      expect(stream!.nextDueAt).toBeGreaterThan(Date.now());
    }
    // Recorded with its backoff: the job is not redelivered at once, and the planner plans the
    // connection again at the streams' next due time.
    expect(answer.batchItemFailures).toEqual([]);
    // The poll failure alarm still counts it.
    expect(printed.join('')).toContain('"PollFailures":1');
    // The error line keeps what diagnoses the refusal and none of what the SDK error carried.
    expect(printed.join('')).not.toMatch(/tok-secret|\$response|CiphertextBlob/);
    const logged = printed
      .flatMap((chunk) => chunk.split('\n'))
      .filter((line) => line.includes('could not be opened'))
      .map((line) => JSON.parse(line) as { error: unknown });
    expect(logged).toHaveLength(1);
    expect(JSON.stringify(logged[0]!.error)).toMatch(/"DisabledException"/);
    expect(JSON.stringify(logged[0]!.error)).toContain(
      '"$metadata":{"httpStatusCode":400,"requestId":"kms-request-1"}',
    );
    expect((await connections.get('hotel-1'))?.nextDueAt).toBeGreaterThan(Date.now());
  });
});
