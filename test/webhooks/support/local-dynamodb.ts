import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  dynaliteInProcessAnswer,
  dynaliteRequestHandler,
  unsignedLocalSigner,
} from '../../../shared/local/dynalite-in-process.ts';
import { closeDynaliteServer, startDynaliteServer } from '../../../shared/local/dynalite-server.ts';
import { LOCAL_CREDENTIALS } from '../../../shared/local/local-credentials.ts';
import { createStateTable } from '../../../shared/state/dynamodb-table.ts';

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
 * Starts dynalite in-process on a free port and creates a pk/sk table. Its clients are plain SDK
 * clients (every command through the SDK's middleware and serialisation, where `observedTable`
 * sees it), whose requests reach dynalite's request listener without a socket and unsigned, as
 * the local runtime's do: HTTP on both sides and SigV4 took a sixth of these 20 files' CPU,
 * and dynalite answers the same either way. The server is the local runtime's (its fixes
 * applied before dynalite loads: test files share a worker's modules, and a dynalite loaded
 * without them would keep its own actions for every later file).
 */
export async function startLocalTable(tableName = 'webhooks-test'): Promise<LocalTable> {
  const server = await startDynaliteServer();
  const { port } = server.address() as AddressInfo;
  const requestHandler = dynaliteRequestHandler(dynaliteInProcessAnswer(server));
  const sdkClient = () =>
    new DynamoDBClient({
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${port}`,
      credentials: LOCAL_CREDENTIALS,
      requestHandler,
      signer: unsignedLocalSigner,
    });
  const client = sdkClient();
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
      const observed = sdkClient();
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
      await closeDynaliteServer(server);
    },
  };
}
