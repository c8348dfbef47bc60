/**
 * DynamoDbConnectionStore: connections in the shared state table.
 *
 * | Item       | pk            | sk              | Other attributes                              |
 * |------------|---------------|-----------------|-----------------------------------------------|
 * | connection | `CONNECTIONS` | `<connectionId>`| every StoredConnection field (token sealed)   |
 *
 * Why one partition: listing is one paged Query in id order, which is what the planner and
 * `connections list` need; 10,000 connections of about 0.6 KB are 6 MB, read once a minute
 * by the planner (about 750 eventually consistent read units a minute, far under a
 * partition's 3,000 per second); the pollers' `nextDueAt` updates are one write per job
 * (10,000 a minute is about 170 a second, under a partition's 1,000 write units per second).
 * Stream states and snapshots keep their own keys.
 */
import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { parseOrThrow } from '../errors.ts';
import { type DocumentClient, documentClientOf } from '../state/document-client.ts';
import { toStoreError, withStoreErrors } from '../state/dynamodb-errors.ts';
import { type StoredConnection, StoredConnectionSchema } from './connection.ts';
import {
  CONNECTION_PAGE_SIZE_DEFAULT,
  ConnectionExistsError,
  type ConnectionPage,
  type ConnectionStore,
  type ListConnectionsOptions,
} from './connection-store.ts';

/** Partition key of every connection item. */
export const CONNECTIONS_PK = 'CONNECTIONS';

/** Options of {@link DynamoDbConnectionStore}. */
export interface DynamoDbConnectionStoreOptions {
  client: DynamoDBClient;
  tableName: string;
  /**
   * Told of a stored connection a listing leaves out because it cannot be read (edited by hand,
   * or written by another version): one such item must not stop the polls of every other
   * connection. Default: a warning on stderr.
   */
  onUnreadable?: (id: string, error: unknown) => void;
}

/**
 * {@link ConnectionStore} on the state table; `create` and `setEnabled` are conditional
 * writes, so two admins adding one id cannot both win and a removed connection is not revived.
 */
export class DynamoDbConnectionStore implements ConnectionStore {
  private readonly documents: DocumentClient;
  private readonly tableName: string;

  private readonly onUnreadable: (id: string, error: unknown) => void;

  constructor(options: DynamoDbConnectionStoreOptions) {
    this.tableName = options.tableName;
    this.onUnreadable =
      options.onUnreadable ??
      ((id, error) =>
        console.warn(`connection ${id} is left out: ${(error as Error).message ?? String(error)}`));
    this.documents = documentClientOf(options.client, {
      marshallOptions: { removeUndefinedValues: true },
    });
  }

  async create(connection: StoredConnection): Promise<void> {
    const parsed = parseOrThrow(StoredConnectionSchema, connection, `connection ${connection.id}`);
    try {
      await this.documents.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...parsed, ...keyOf(parsed.id) },
          ConditionExpression: 'attribute_not_exists(#pk)',
          ExpressionAttributeNames: { '#pk': 'pk' },
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        throw new ConnectionExistsError(parsed.id, { cause: error });
      }
      throw toStoreError(this.tableName, 'PutItem', error);
    }
  }

  async get(id: string): Promise<StoredConnection | undefined> {
    const output = await this.call('GetItem', () =>
      this.documents.send(
        new GetCommand({ TableName: this.tableName, Key: keyOf(id), ConsistentRead: true }),
      ),
    );
    return output.Item ? fromItem(output.Item) : undefined;
  }

  async listPage(options: ListConnectionsOptions = {}): Promise<ConnectionPage> {
    const limit = options.limit ?? CONNECTION_PAGE_SIZE_DEFAULT;
    const output = await this.call('Query', () =>
      this.documents.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': 'pk' },
          ExpressionAttributeValues: { ':pk': CONNECTIONS_PK },
          ConsistentRead: options.consistent ?? true,
          Limit: limit,
          ...(options.after ? { ExclusiveStartKey: keyOf(options.after) } : {}),
        }),
      ),
    );
    const connections = (output.Items ?? []).flatMap((item) => {
      try {
        return [fromItem(item)];
      } catch (error) {
        this.onUnreadable(String(item.sk), error);
        return [];
      }
    });
    const last = output.Items?.at(-1)?.sk;
    // A page may end at the limit with nothing after it; the next (empty) page says so.
    return output.LastEvaluatedKey && last !== undefined
      ? { connections, next: String(last) }
      : { connections };
  }

  async setEnabled(id: string, enabled: boolean): Promise<StoredConnection | undefined> {
    const item = await this.updateExisting(id, { enabled });
    return item ? fromItem(item) : undefined;
  }

  async recordNextDue(id: string, nextDueAt: number): Promise<void> {
    await this.updateExisting(id, { nextDueAt });
  }

  async remove(id: string, registeredAt?: string): Promise<boolean> {
    try {
      const output = await this.documents.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: keyOf(id),
          ReturnValues: 'ALL_OLD',
          ...(registeredAt === undefined
            ? {}
            : {
                ConditionExpression: '#createdAt = :registeredAt',
                ExpressionAttributeNames: { '#createdAt': 'createdAt' },
                ExpressionAttributeValues: { ':registeredAt': registeredAt },
              }),
        }),
      );
      return output.Attributes !== undefined;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw toStoreError(this.tableName, 'DeleteItem', error);
    }
  }

  /**
   * Sets `fields` on an existing connection and returns the updated item; undefined when it
   * does not exist (the condition keeps a removed connection from coming back as a bare item).
   */
  private async updateExisting(
    id: string,
    fields: Record<string, unknown>,
  ): Promise<Record<string, unknown> | undefined> {
    const names = Object.keys(fields);
    try {
      const output = await this.documents.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keyOf(id),
          UpdateExpression: `SET ${names.map((_, index) => `#f${index} = :v${index}`).join(', ')}`,
          ConditionExpression: 'attribute_exists(#pk)',
          ExpressionAttributeNames: {
            '#pk': 'pk',
            ...Object.fromEntries(names.map((name, index) => [`#f${index}`, name])),
          },
          ExpressionAttributeValues: Object.fromEntries(
            names.map((name, index) => [`:v${index}`, fields[name]]),
          ),
          ReturnValues: 'ALL_NEW',
        }),
      );
      return output.Attributes;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw toStoreError(this.tableName, 'UpdateItem', error);
    }
  }

  private call<T>(operation: string, run: () => Promise<T>): Promise<T> {
    return withStoreErrors(this.tableName, operation, run);
  }
}

function keyOf(id: string): { pk: string; sk: string } {
  return { pk: CONNECTIONS_PK, sk: id };
}

function fromItem(item: Record<string, unknown>): StoredConnection {
  const { pk: _pk, sk, ...rest } = item;
  return parseOrThrow(StoredConnectionSchema, rest, `stored connection ${String(sk)}`);
}
