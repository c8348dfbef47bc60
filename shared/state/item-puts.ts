import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/**
 * Puts whole document items of one table, each replacing what its key held: a store's own route
 * for writes that need nothing of the items they replace (the local store writes them straight
 * into its LevelDB, see dynalite-item-puts.ts). Resolves to the items it left, from the first
 * part holding one it does not take (a value type it does not write, an item near the size
 * limit, a key given twice; all of them for a table with an index): the caller sends those as
 * BatchWriteItem requests, which answer as DynamoDB does. Fails as a DynamoDB request would.
 */
export interface ItemPuts {
  put(
    tableName: string,
    items: readonly Record<string, unknown>[],
  ): Promise<readonly Record<string, unknown>[]>;
}

/** Low-level clients whose stores put items another way ({@link routeItemPuts}). */
const routes = new WeakMap<DynamoDBClient, ItemPuts>();

/**
 * Has the stores over `client` put their blind item batches (the state store's snapshots)
 * through `puts` instead of BatchWriteItem requests: the local runtime's store, in this process.
 */
export function routeItemPuts(client: DynamoDBClient, puts: ItemPuts): void {
  routes.set(client, puts);
}

/** The item puts routed for `client` ({@link routeItemPuts}); undefined for a client of AWS. */
export function itemPutsOf(client: DynamoDBClient): ItemPuts | undefined {
  return routes.get(client);
}
