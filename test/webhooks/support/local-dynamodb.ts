import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createStateTable } from '../../../shared/state/dynamodb-table.ts';
import { startSdkDynalite } from '../../support/sdk-dynalite.ts';

/** A dynalite server on 127.0.0.1 with the state table created. */
export interface LocalTable {
  client: DynamoDBClient;
  tableName: string;
  /** Creates another pk/sk table on the same server, named `prefix-N`, and returns its name. */
  freshTable(prefix: string): Promise<string>;
  /**
   * A fresh table (see freshTable) and a client of it of its own that shows `observe` each
   * command it sends, with its input, before sending it: what a test counts.
   */
  observedTable(
    prefix: string,
    observe: (command: string, input: Record<string, unknown>) => void,
  ): Promise<{ client: DynamoDBClient; tableName: string; close: () => void }>;
  stop(): Promise<void>;
}

/**
 * Starts dynalite in-process and creates a pk/sk table. Its clients are plain SDK clients
 * reaching dynalite without a socket, unsigned (see startSdkDynalite): every command goes
 * through the SDK's middleware, where `observedTable` sees it. The server is the local
 * runtime's (its fixes applied before dynalite loads: test files share a worker's modules, and
 * a dynalite loaded without them would keep its own actions for every later file).
 */
export async function startLocalTable(tableName = 'webhooks-test'): Promise<LocalTable> {
  const dynalite = await startSdkDynalite();
  const client = dynalite.newClient();
  await createStateTable(client, tableName);
  let created = 0;
  const freshTable = async (prefix: string) => {
    const name = `${prefix}-${++created}`;
    await createStateTable(client, name);
    return name;
  };
  return {
    client,
    tableName,
    freshTable,
    async observedTable(prefix, observe) {
      const observed = dynalite.newClient();
      observed.middlewareStack.add(
        (next, context) => async (args) => {
          observe(context.commandName ?? 'unknown', args.input as Record<string, unknown>);
          return next(args);
        },
        { step: 'initialize', name: 'observeCommands' },
      );
      return {
        client: observed,
        tableName: await freshTable(prefix),
        close: () => observed.destroy(),
      };
    },
    stop: async () => {
      client.destroy();
      await dynalite.stop();
    },
  };
}
