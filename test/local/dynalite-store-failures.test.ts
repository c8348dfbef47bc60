import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { resolveFromDynalite } from '../../shared/local/dynalite-require.ts';
import { startLocalDynamoDb } from '../../shared/local/dynamodb.ts';

interface WritableLevel {
  _put(...args: unknown[]): Promise<void>;
  _batch(...args: unknown[]): Promise<void>;
}

/** dynalite's copy of classic-level, whose writes the test makes fail. */
const { ClassicLevel } = createRequire(resolveFromDynalite('level'))('classic-level') as {
  ClassicLevel: { prototype: WritableLevel };
};

describe('the local DynamoDB when its disk refuses a write', () => {
  it('fails that request, through the SDK client too, and the process goes on', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dynalite-full-'));
    const dynamo = await startLocalDynamoDb({
      path: join(dir, 'dynamodb'),
      transport: 'in-process',
    });
    const uncaught: unknown[] = [];
    const note = (error: unknown) => uncaught.push(error);
    const { _put: put, _batch: batch } = ClassicLevel.prototype;
    try {
      await dynamo.client.send(
        new CreateTableCommand({
          TableName: 'tbl',
          AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
          KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
          BillingMode: 'PAY_PER_REQUEST',
        }),
      );
      // dynalite marks the table ACTIVE by a write of its own, a moment later.
      await new Promise((resolve) => setTimeout(resolve, 50));
      const full = async () => {
        throw new Error(`IO error: ${dir}/dynamodb/000003.log: No space left on device`);
      };
      ClassicLevel.prototype._put = full;
      ClassicLevel.prototype._batch = full;
      process.on('uncaughtException', note);
      const attempt = dynamo.client.send(
        new PutItemCommand({ TableName: 'tbl', Item: { pk: { S: 'a' } } }),
      );
      const outcome = await Promise.race([
        attempt.then(
          () => 'stored',
          (error: Error) => error.message,
        ),
        new Promise<string>((resolve) => setTimeout(() => resolve('no answer'), 5_000)),
      ]);
      expect(uncaught).toEqual([]);
      expect(outcome).toMatch(/No space left on device/);

      // Space again: the next write is stored.
      ClassicLevel.prototype._put = put;
      ClassicLevel.prototype._batch = batch;
      await dynamo.client.send(new PutItemCommand({ TableName: 'tbl', Item: { pk: { S: 'b' } } }));
    } finally {
      process.off('uncaughtException', note);
      ClassicLevel.prototype._put = put;
      ClassicLevel.prototype._batch = batch;
      await dynamo.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
