import {
  type AttributeDefinition,
  CreateTableCommand,
  type DynamoDBClient,
  type KeySchemaElement,
  ResourceInUseException,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';

/**
 * Keys of the single state table (state store and dispatcher share it). The CDK infra
 * defines the same keys: `pk` (partition) and `sk` (sort), both strings.
 */
export const STATE_TABLE_KEY_SCHEMA: readonly KeySchemaElement[] = [
  { AttributeName: 'pk', KeyType: 'HASH' },
  { AttributeName: 'sk', KeyType: 'RANGE' },
];

/** Attribute types of the key attributes of {@link STATE_TABLE_KEY_SCHEMA}. */
export const STATE_TABLE_ATTRIBUTE_DEFINITIONS: readonly AttributeDefinition[] = [
  { AttributeName: 'pk', AttributeType: 'S' },
  { AttributeName: 'sk', AttributeType: 'S' },
];

/** The TTL attribute (epoch seconds) of the state table; the infra enables TTL on it. */
export const STATE_TABLE_TTL_ATTRIBUTE = 'ttl';

/** Longest wait for a new table to become ACTIVE, in seconds. */
const CREATE_TABLE_WAIT_SECONDS = 30;

/**
 * Creates the state table (on-demand billing) for local runs and tests, and waits until it is
 * ACTIVE. Idempotent: an existing table is left as it is. Returns whether this call created
 * it. TTL is not switched on here (dynalite lacks UpdateTimeToLive); the CDK infra does it in
 * AWS, and a local run removes expired items itself (see removeExpiredItems).
 * @example await createStateTable(client, 'change-bridge-state')
 */
export async function createStateTable(
  client: DynamoDBClient,
  tableName: string,
): Promise<boolean> {
  try {
    const created = await client.send(
      new CreateTableCommand({
        TableName: tableName,
        KeySchema: [...STATE_TABLE_KEY_SCHEMA],
        AttributeDefinitions: [...STATE_TABLE_ATTRIBUTE_DEFINITIONS],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    if (created.TableDescription?.TableStatus !== 'ACTIVE') await untilActive(client, tableName);
    return true;
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  await untilActive(client, tableName);
  return false;
}

/** Waits until `tableName` is ACTIVE. */
async function untilActive(client: DynamoDBClient, tableName: string): Promise<void> {
  // Local tables turn ACTIVE within milliseconds: poll from 50 ms, not the waiter's default 20 s.
  await waitUntilTableExists(
    { client, maxWaitTime: CREATE_TABLE_WAIT_SECONDS, minDelay: 0.05, maxDelay: 1 },
    { TableName: tableName },
  );
}
