import type { Command } from 'commander';
import { createConnectorClient } from '../connector/connector-client.ts';
import { connectorConfigFromEnv } from '../connector/connector-config.ts';
import { ConnectorError } from '../connector/errors.ts';
import {
  isOperationName,
  OPERATION_NAMES,
  OPERATIONS,
  type OperationName,
} from '../connector/operations.ts';
import { parseOrThrow } from '../errors.ts';
import { CliExit, type CliIo, EXIT_FAILURE, EXIT_USAGE } from './exit-codes.ts';
import { readJsonArgument } from './read-json-arg.ts';

/** Where `call` goes when CONNECTOR_BASE_URL is unset: `change-bridge simulator` on its default port. */
export const SIMULATOR_DEFAULT_ENV = {
  CONNECTOR_BASE_URL: 'http://127.0.0.1:4010',
  CONNECTOR_CLIENT_TOKEN: 'sim-client-token',
  CONNECTOR_ACCESS_TOKEN: 'sim-access-token',
} as const;

/**
 * Validates `body` for `operation` without sending anything.
 * @throws CliExit(2) for an unknown operation; ValidationError naming the field otherwise.
 */
export function validateCallBody(
  operation: string,
  body: unknown,
): { name: OperationName; body: object } {
  if (!isOperationName(operation)) {
    throw new CliExit(
      EXIT_USAGE,
      `unknown operation "${operation}"; one of: ${OPERATION_NAMES.join(', ')}`,
    );
  }
  parseOrThrow(OPERATIONS[operation].request, body, `${operation} request`);
  return { name: operation, body: body as object };
}

/** Registers `change-bridge call OPERATION [--data JSON | --data @file.json]`. */
export function registerCallCommand(
  program: Command,
  io: CliIo,
  setExit: (code: number) => void,
): void {
  program
    .command('call')
    .description(
      'Call one Connector API operation (e.g. customers/getAll): validates the body, adds the credentials ' +
        'from CONNECTOR_* variables (default: the local simulator at http://127.0.0.1:4010), prints the response JSON.',
    )
    .argument('<operation>', `one of: ${OPERATION_NAMES.join(', ')}`)
    .option('--data <json>', 'request body as JSON, or @file.json', '{}')
    .option('--json', 'print compact JSON (one document)')
    .action(async (operation: string, options: { data: string; json?: boolean }) => {
      const body = await readJsonArgument(options.data);
      const valid = validateCallBody(operation, body);
      const env = process.env.CONNECTOR_BASE_URL
        ? process.env
        : { ...SIMULATOR_DEFAULT_ENV, ...process.env };
      const client = createConnectorClient(connectorConfigFromEnv(env));
      try {
        const response = await client.call(valid.name, valid.body as never);
        io.out(options.json ? JSON.stringify(response) : JSON.stringify(response, null, 2));
      } catch (error) {
        if (!(error instanceof ConnectorError)) throw error;
        io.err(
          `error: ${error.message}${error.requestId ? ` (RequestId ${error.requestId})` : ''}`,
        );
        setExit(EXIT_FAILURE);
      } finally {
        await client.close();
      }
    });
}
