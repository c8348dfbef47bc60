import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, type TranslateConfig } from '@aws-sdk/lib-dynamodb';

/** What the stores use of a DynamoDB document client: `send` with lib-dynamodb's commands. */
export type DocumentClient = Pick<DynamoDBDocumentClient, 'send'>;

/** Makes the document client of one low-level client, given the stores' marshalling options. */
export type DocumentClientFactory = (
  translateConfig: TranslateConfig | undefined,
) => DocumentClient;

/** Low-level clients whose document clients are made another way (the local store's direct route). */
const factories = new WeakMap<DynamoDBClient, DocumentClientFactory>();

/**
 * Has {@link documentClientOf} make `client`'s document clients with `factory` instead of the
 * SDK's `DynamoDBDocumentClient`: the local runtime's store answers them in this process,
 * without the SDK's middleware, which cost more than the store's own work.
 */
export function routeDocumentClients(client: DynamoDBClient, factory: DocumentClientFactory): void {
  factories.set(client, factory);
}

/** Whether `client`'s document clients skip the SDK ({@link routeDocumentClients}). */
export function routesDocumentClients(client: DynamoDBClient): boolean {
  return factories.has(client);
}

/**
 * The document client the stores send their commands through: the SDK's
 * `DynamoDBDocumentClient` over `client`, unless `client` was routed elsewhere
 * ({@link routeDocumentClients}).
 * @example const documents = documentClientOf(client, { marshallOptions: { removeUndefinedValues: true } })
 */
export function documentClientOf(
  client: DynamoDBClient,
  translateConfig?: TranslateConfig,
): DocumentClient {
  return (
    factories.get(client)?.(translateConfig) ?? DynamoDBDocumentClient.from(client, translateConfig)
  );
}
