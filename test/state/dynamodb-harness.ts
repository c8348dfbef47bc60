import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../shared/errors.ts';
import { DynamoDbStateStore } from '../../shared/state/dynamodb-state-store.ts';
import { createStateTable } from '../../shared/state/dynamodb-table.ts';

let tables = 0;

/** A store on a new, empty table of the DynamoDB behind `client`. */
export async function createStoreOnNewTable(
  client: DynamoDBClient,
): Promise<{ store: DynamoDbStateStore; tableName: string }> {
  tables += 1;
  const tableName = `state-${process.pid}-${tables}`;
  await createStateTable(client, tableName);
  return { store: new DynamoDbStateStore({ client, tableName }), tableName };
}

/**
 * Registers tests of items that another writer (an older version, a manual edit) left
 * malformed in the table: reads must reject them with a ValidationError naming the field.
 */
export function describeMalformedItems(name: string, getClient: () => DynamoDBClient): void {
  describe(`${name}: malformed stored items`, () => {
    async function storeWithRawItem(item: Record<string, unknown>): Promise<DynamoDbStateStore> {
      const client = getClient();
      const { store, tableName } = await createStoreOnNewTable(client);
      await DynamoDBDocumentClient.from(client).send(
        new PutCommand({ TableName: tableName, Item: item }),
      );
      return store;
    }

    const snapshotKey = { pk: 'STREAM#main:customer', sk: 'SNAP#a' };

    it('rejects a snapshot item without a hash, naming hash', async () => {
      const store = await storeWithRawItem({
        ...snapshotKey,
        entityId: 'a',
        record: '{}',
        updatedAt: 1,
      });

      const error = await store.getSnapshots('main:customer', ['a']).catch((e) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect(error.path).toBe('hash');
      expect(error.message).toContain('STREAM#main:customer/SNAP#a');
    });

    it('rejects a snapshot whose record is not JSON, naming record, once the record is read (reads and scans)', async () => {
      const store = await storeWithRawItem({
        ...snapshotKey,
        entityId: 'a',
        hash: 'h',
        record: '{"Id":',
        updatedAt: 1,
      });

      // Its other fields are checked on reading; the record, on first use.
      const read = (await store.getSnapshots('main:customer', ['a'])).get('a')!;
      expect(read.hash).toBe('h');
      const error = (() => {
        try {
          return read.record;
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).path).toBe('record');
      expect((error as Error).message).toContain('STREAM#main:customer/SNAP#a');
      const scanned: Array<{ record: unknown }> = [];
      for await (const page of store.scanSnapshots('main:customer')) scanned.push(...page);
      expect(() => scanned[0]!.record).toThrow(expect.objectContaining({ path: 'record' }));
    });

    it('rejects a stream state whose version is not a number, naming version', async () => {
      const store = await storeWithRawItem({
        pk: 'STREAMS',
        sk: 'main:customer',
        streamId: 'main:customer',
        connectionId: 'main',
        entityType: 'customer',
        watermark: null,
        window: null,
        lastPollAt: null,
        lastSuccessAt: null,
        nextDueAt: 0,
        consecutiveFailures: 0,
        lastError: null,
        parked: false,
        parkedReason: null,
        lastSweepAt: null,
        initialSyncDone: false,
        version: '3',
      });

      await expect(store.getStream('main:customer')).rejects.toMatchObject({
        name: 'ValidationError',
        path: 'version',
      });
      await expect(store.listStreams()).rejects.toBeInstanceOf(ValidationError);
    });
  });
}
