import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDiskQueue } from '../../shared/local/disk-queue/disk-queue.ts';
import { type LocalDynamoDb, startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { LOCAL_CREDENTIALS } from '../../shared/local/local-credentials.ts';
import type { SqsEmulator } from '../../shared/local/sqs-emulator.ts';
import { rawPost } from '../support/raw-post.ts';

/** A SigV4 authorization header naming `accessKeyId` (the servers check whose, not the signature). */
const signedBy = (accessKeyId: string, service: string) => ({
  authorization: `AWS4-HMAC-SHA256 Credential=${accessKeyId}/20260101/us-east-1/${service}/aws4_request, SignedHeaders=host, Signature=0`,
  'x-amz-date': '20260101T000000Z',
});
const dynamoTarget = {
  'content-type': 'application/x-amz-json-1.0',
  'x-amz-target': 'DynamoDB_20120810.ListTables',
  ...signedBy(LOCAL_CREDENTIALS.accessKeyId, 'dynamodb'),
};
const sqsTarget = {
  'content-type': 'application/x-amz-json-1.0',
  'x-amz-target': 'AmazonSQS.CreateQueue',
  ...signedBy(LOCAL_CREDENTIALS.accessKeyId, 'sqs'),
};

describe("the local runtime's inner servers answer only the bridge", () => {
  let dir: string;
  let db: LocalDynamoDb;
  let queue: SqsEmulator;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'loopback-only-'));
    db = await startLocalDynamoDb({ path: join(dir, 'dynamodb') });
    queue = await startDiskQueue({ path: join(dir, 'queue') });
  });
  afterAll(async () => {
    await db.close();
    await queue.close();
    await rm(dir, { recursive: true, force: true });
  });

  const servers = () => [
    { name: 'dynalite', endpoint: db.endpoint, headers: dynamoTarget, body: '{}' },
    { name: 'disk queue', endpoint: queue.endpoint, headers: sqsTarget, body: '{"QueueName":"q"}' },
  ];

  it('refuses a request under a rebound name (DNS rebinding) with 403', async () => {
    for (const server of servers()) {
      const port = new URL(server.endpoint).port;
      const answer = await rawPost(
        server.endpoint,
        { ...server.headers, host: `attacker.example:${port}` },
        '{}',
      );
      expect(answer.status, server.name).toBe(403);
      expect(answer.body, server.name).toContain('attacker.example');
    }
  });

  it('refuses a request that carries an Origin, even under its own Host', async () => {
    for (const server of servers()) {
      const host = new URL(server.endpoint).host;
      const answer = await rawPost(
        server.endpoint,
        { ...server.headers, host, origin: 'http://attacker.example' },
        '{}',
      );
      expect(answer.status, server.name).toBe(403);
    }
  });

  it('refuses another local process: a request not signed with this bridge credential', async () => {
    for (const server of servers()) {
      const host = new URL(server.endpoint).host;
      for (const other of ['local', 'x', LOCAL_CREDENTIALS.accessKeyId.slice(0, -1)]) {
        const headers = { ...server.headers, ...signedBy(other, 'dynamodb'), host };
        const answer = await rawPost(server.endpoint, headers, server.body);
        expect(answer.status, `${server.name} ${other}`).toBe(403);
      }
      const { authorization: _none, ...unsigned } = server.headers;
      expect((await rawPost(server.endpoint, { ...unsigned, host }, server.body)).status).toBe(403);
    }
  });

  it('answers the bridge: its SDK clients, and loopback callers under 127.0.0.1 or localhost', async () => {
    await expect(db.client.send(new ListTablesCommand({}))).resolves.toHaveProperty('TableNames');
    await expect(
      queue.client.send(new CreateQueueCommand({ QueueName: 'ours' })),
    ).resolves.toBeDefined();
    for (const server of servers()) {
      const port = new URL(server.endpoint).port;
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
        const answer = await rawPost(server.endpoint, { ...server.headers, host }, server.body);
        expect(`${answer.status} ${answer.body}`, `${server.name} ${host}`).toMatch(/^200/);
      }
    }
  });
});
