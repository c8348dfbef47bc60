import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDbGrantLedger } from '../state/dynamodb-grant-ledger.ts';

/**
 * The connector budget's ledger of a local run: grants in the state table, so a restart knows
 * what the last 30 s already spent; the live reserves found there are dropped at its first
 * take of each token, since they are of a run that ended (one process at a time opens a data
 * dir, under its directory lock): a run killed with SIGKILL no longer holds bulk work (sweeps,
 * first syncs) of the next one back until its reserve lapses.
 */
export function localGrantLedger(client: DynamoDBClient, tableName: string): DynamoDbGrantLedger {
  return new DynamoDbGrantLedger(client, tableName, { dropEarlierReserves: true });
}
