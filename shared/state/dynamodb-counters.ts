import { UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { DocumentClient } from './document-client.ts';
import { withStoreErrors } from './dynamodb-errors.ts';

/**
 * Adds counts to counter items: one UpdateItem per positive count, all sent at once, each
 * built by `update` (its key and an `ADD` expression: atomic, so concurrent writers never lose
 * an increment). Counts of 0 or less are skipped. Throws a BridgeError naming the table.
 * @example await addCounts(client, table, counts, (id, n) => ({ Key: keyOf(id), UpdateExpression: 'ADD n :n', ExpressionAttributeValues: { ':n': n } }))
 */
export async function addCounts(
  client: DocumentClient,
  tableName: string,
  counts: ReadonlyMap<string, number>,
  update: (id: string, count: number) => Omit<UpdateCommandInput, 'TableName'>,
): Promise<void> {
  await Promise.all(
    [...counts]
      .filter(([, count]) => count > 0)
      .map(([id, count]) =>
        withStoreErrors(tableName, 'UpdateItem', () =>
          client.send(new UpdateCommand({ TableName: tableName, ...update(id, count) })),
        ),
      ),
  );
}
