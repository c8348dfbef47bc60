import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { resolveFromDynalite } from '../../shared/local/dynalite-require.ts';
import { STORE_REOPEN_EVERY_MS } from '../../shared/local/dynalite-store-failures.ts';
import { startLocalDynamoDb } from '../../shared/local/dynamodb.ts';

interface WritableLevel {
  _put(...args: unknown[]): Promise<void>;
  _batch(...args: unknown[]): Promise<void>;
  _open(...args: unknown[]): Promise<void>;
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

  it('opens the store again once there is room after LevelDB failed to write a table file, which it refuses every write after until reopened', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dynalite-stuck-'));
    const dynamo = await startLocalDynamoDb({
      path: join(dir, 'dynamodb'),
      transport: 'in-process',
    });
    const { _put: put, _batch: batch, _open: open } = ClassicLevel.prototype;
    /** LevelDB's kept background error (bg_error_), and whether the disk has room. */
    let stuck = false;
    let room = true;
    const tableFileError = () =>
      new Error(`IO error: ${dir}/dynamodb/000005.ldb: No space left on device`);
    const putItem = (pk: string) =>
      dynamo.client.send(new PutItemCommand({ TableName: 'tbl', Item: { pk: { S: pk } } }));
    try {
      await dynamo.client.send(
        new CreateTableCommand({
          TableName: 'tbl',
          AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
          KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
          BillingMode: 'PAY_PER_REQUEST',
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      await putItem('before');
      // The disk fills as a memtable is flushed: every write fails from then on, and so does an
      // open while there is no room (LevelDB writes a table of its log as it opens).
      ClassicLevel.prototype._put = async function (this: WritableLevel, ...args) {
        if (stuck) throw tableFileError();
        return put.apply(this, args);
      };
      ClassicLevel.prototype._batch = async function (this: WritableLevel, ...args) {
        if (stuck) throw tableFileError();
        return batch.apply(this, args);
      };
      ClassicLevel.prototype._open = async function (this: WritableLevel, ...args) {
        if (!room) throw tableFileError();
        stuck = false;
        return open.apply(this, args);
      };
      stuck = true;
      room = false;
      await expect(putItem('full')).rejects.toThrow(/000005\.ldb: No space left on device/);
      await new Promise((resolve) => setTimeout(resolve, 200));
      // Closed for its reopen, the store answers with the error it keeps, not a bare "closed".
      await expect(putItem('still full')).rejects.toThrow(
        /000005\.ldb: No space left on device \(LevelDB refuses writes after it until the store is opened again/,
      );

      // Room again: within a reopen's wait, writes go through, and what was stored is there.
      room = true;
      const deadline = Date.now() + STORE_REOPEN_EVERY_MS + 3_000;
      let stored = false;
      while (!stored && Date.now() < deadline) {
        stored = await putItem('after').then(
          () => true,
          () => false,
        );
        if (!stored) await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(stored).toBe(true);
      const read = await dynamo.client.send(
        new GetItemCommand({ TableName: 'tbl', Key: { pk: { S: 'before' } } }),
      );
      expect(read.Item).toEqual({ pk: { S: 'before' } });
    } finally {
      ClassicLevel.prototype._put = put;
      ClassicLevel.prototype._batch = batch;
      ClassicLevel.prototype._open = open;
      await dynamo.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
