import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand, type PutCommandInput } from '@aws-sdk/lib-dynamodb';
import type { DocumentClient } from './document-client.ts';
import { toStoreError } from './dynamodb-errors.ts';
import type { ItemKey } from './dynamodb-items.ts';

/** The condition of a conditional write: its expression and the names and values it uses. */
export type WriteCondition = Pick<
  PutCommandInput,
  'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'
>;

/** The table a conditional write goes to, and the client it is sent through. */
export interface ConditionalWriteTable {
  documentClient: DocumentClient;
  tableName: string;
}

/**
 * Puts `item` if `condition` holds; the refusal when it does not (an expected outcome, not an error).
 * @throws BridgeError (toStoreError, operation PutItem) on any other failure
 * @example if (await putIf(table, item, { ConditionExpression: 'attribute_not_exists(#pk)', ExpressionAttributeNames: { '#pk': 'pk' } })) return null
 */
export async function putIf(
  table: ConditionalWriteTable,
  item: Record<string, unknown>,
  condition: WriteCondition,
): Promise<ConditionalCheckFailedException | undefined> {
  return refusalOf(table.tableName, 'PutItem', () =>
    table.documentClient.send(
      new PutCommand({ TableName: table.tableName, Item: item, ...condition }),
    ),
  );
}

/**
 * Deletes `key`'s item if `condition` holds; the refusal when it does not (an expected outcome,
 * not an error).
 * @throws BridgeError (toStoreError, operation DeleteItem) on any other failure
 * @example const deleted = (await deleteIf(table, key, { ConditionExpression: '#owner = :owner', ExpressionAttributeNames: { '#owner': 'owner' }, ExpressionAttributeValues: { ':owner': owner } })) === undefined
 */
export async function deleteIf(
  table: ConditionalWriteTable,
  key: ItemKey,
  condition: WriteCondition,
): Promise<ConditionalCheckFailedException | undefined> {
  return refusalOf(table.tableName, 'DeleteItem', () =>
    table.documentClient.send(
      new DeleteCommand({ TableName: table.tableName, Key: key, ...condition }),
    ),
  );
}

/** Runs one conditional write: its refusal as a value, any other failure as {@link toStoreError}. */
async function refusalOf(
  tableName: string,
  operation: string,
  write: () => Promise<unknown>,
): Promise<ConditionalCheckFailedException | undefined> {
  try {
    await write();
    return undefined;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return error;
    throw toStoreError(tableName, operation, error);
  }
}
