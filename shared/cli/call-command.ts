import type { Command } from 'commander';
import { ZodError } from 'zod';
import { configurationError } from '../configuration-error.ts';
import { ConnectionIdSchema } from '../connections/connection.ts';
import {
  connectorConfigFromEnv,
  type PortfolioScope,
  parsePortfolioScope,
} from '../connector/connector-config.ts';
import { ENVIRONMENT_CREDENTIALS } from '../connector/credential-fields.ts';
import { ConnectorError } from '../connector/errors.ts';
import { parseRequestFor } from '../connector/ignored-scope.ts';
import {
  isOperationName,
  OPERATION_NAMES,
  OPERATIONS,
  type OperationName,
} from '../connector/operations.ts';
import { applyPortfolioScope } from '../connector/portfolio-scope.ts';
import { toValidationError, ValidationError } from '../errors.ts';
import { isJsonObject } from '../json-object.ts';
import { withPlainMessages } from '../plain-message.ts';
import { resolveApiUrl } from './admin/api-client.ts';
import { appliedNote, bridgeCallFailure, callViaBridge } from './call-via-bridge.ts';
import { CliExit, type CliIo, EXIT_FAILURE, EXIT_USAGE } from './exit-codes.ts';
import { readJsonArgument } from './read-json-arg.ts';

/** Where `call` goes when CONNECTOR_BASE_URL is unset: `change-bridge simulator` on its default port. */
export const SIMULATOR_DEFAULT_ENV = {
  CONNECTOR_BASE_URL: 'http://127.0.0.1:4010',
  CONNECTOR_CLIENT_TOKEN: 'sim-client-token',
  CONNECTOR_ACCESS_TOKEN: 'sim-access-token',
} as const;

/** Tokens of a connection of one's own: a direct call without CONNECTOR_BASE_URL must not send them. */
const OWN_TOKEN_VARIABLES = ['CONNECTOR_ACCESS_TOKEN', 'CONNECTOR_CLIENT_TOKEN'] as const;

/**
 * A direct call without CONNECTOR_BASE_URL goes to {@link SIMULATOR_DEFAULT_ENV}'s address, a
 * port any local process may hold: a token of one's own set beside it (the real API's, its
 * base URL forgotten) would be sent there. Refused as `start` refuses it; the simulator's own
 * tokens pass. Names the variable, never its value.
 * @throws ValidationError (a configuration error, exit 2) naming the variable.
 */
export function refuseTokensWithoutBaseUrl(env: Record<string, string | undefined>): void {
  if (env.CONNECTOR_BASE_URL) return;
  const own = OWN_TOKEN_VARIABLES.find((name) => {
    const value = env[name];
    return value !== undefined && value !== '' && value !== SIMULATOR_DEFAULT_ENV[name];
  });
  if (own === undefined) return;
  throw configurationError(
    'CONNECTOR_BASE_URL',
    `required with ${own}: without it call goes to a change-bridge simulator at ` +
      `${SIMULATOR_DEFAULT_ENV.CONNECTOR_BASE_URL} and would send it there (unset ${own} to call the simulator)`,
  );
}

/**
 * Whose Portfolio Access Token scope completes the body before it is checked, as the client
 * completes it before sending: the scope configured here (a direct call), or one the bridge
 * holds and the CLI does not know (`bridge`: any scope value counts as given).
 */
export type CallScope = PortfolioScope | 'bridge' | undefined;

/** A stand-in id for a scope field the bridge will fill in. */
const BRIDGE_FILLS = '00000000-0000-4000-8000-000000000000';

/**
 * Where a call's credentials come from, as a refused credential field names it: the
 * CONNECTOR_* variables for a direct call; the bridge's connection (`--connection`, else its
 * default) for one through the bridge, where those variables are not what it sends. Pure.
 */
function callCredentials(scope: CallScope, connectionId: string | undefined): string {
  if (scope !== 'bridge') return ENVIRONMENT_CREDENTIALS;
  return connectionId === undefined
    ? "the bridge's default connection, by the bridge (another with --connection)"
    : `connection ${connectionId}, by the bridge`;
}

/**
 * Validates `body` for `operation` without sending anything, as the client would send it:
 * completed with the Portfolio Access Token scope (`scope`) first, so a body that leaves
 * `ChainIds` to the configured scope is not refused for naming no filter. Without a scope the
 * token is an ordinary AccessToken, whose `ChainIds` is no filter (connector-api.md #1).
 * Returns the body as given. A credential in it is refused naming where the call's credentials
 * come from (the bridge's `connectionId` for a call through the bridge).
 * @throws CliExit(2) for an unknown operation; ValidationError naming the field otherwise, in
 * plain words (`Limitation.Count: must be at least 1`).
 */
export function validateCallBody(
  operation: string,
  body: unknown,
  scope?: CallScope,
  connectionId?: string,
): { name: OperationName; body: object } {
  if (!isOperationName(operation)) {
    throw new CliExit(
      EXIT_USAGE,
      `unknown operation "${operation}"; one of: ${OPERATION_NAMES.join(', ')}`,
    );
  }
  const spec = OPERATIONS[operation];
  const bridgeScope = { chainIds: [BRIDGE_FILLS], enterpriseIds: [BRIDGE_FILLS] };
  const completed = isJsonObject(body)
    ? applyPortfolioScope(spec, body, scope === 'bridge' ? bridgeScope : scope)
    : body;
  // No scope: CONNECTOR_PORTFOLIO_SCOPE is unset, so the token is an ordinary AccessToken.
  const credential = scope === undefined ? 'ordinary' : 'portfolio-or-unknown';
  const what = `${operation} request`;
  try {
    parseRequestFor(spec, completed, credential, what, callCredentials(scope, connectionId));
  } catch (error) {
    // Named by its JSON fields, in plain words rather than zod's (`Limitation.Count: must be at least 1`).
    if (error instanceof ValidationError && error.cause instanceof ZodError) {
      throw toValidationError(what, withPlainMessages(error.cause));
    }
    throw error;
  }
  return { name: operation, body: body as object };
}

/**
 * A hint for an error that asks for a Portfolio Access Token's scope while
 * `CONNECTOR_PORTFOLIO_SCOPE` is unset (the bridge then sends the token as an ordinary one,
 * without the scope), or an empty string. Pure.
 * @example portfolioScopeHint({ status: 400, message: 'ChainIds: required with a Portfolio Access Token' })
 */
export function portfolioScopeHint(error: { status?: number; message: string }): string {
  if (error.status !== undefined && error.status !== 400 && error.status !== 403) return '';
  if (!/portfolio/i.test(error.message)) return '';
  return (
    '\nhint: a Portfolio Access Token needs its scope: set CONNECTOR_PORTFOLIO_SCOPE to ' +
    'chain:<uuid>,enterprise:<uuid>,… (its chains and enterprises), or pass them in --data'
  );
}

/**
 * A hint for a direct call that found nothing at {@link SIMULATOR_DEFAULT_ENV}'s address
 * (CONNECTOR_BASE_URL unset): the simulator inside `change-bridge start` listens on a port of
 * its own, so beside `npm start` the call goes through the bridge instead. Pure.
 * @example defaultSimulatorHint({ category: 'network' }, {}).startsWith('\nhint:')
 */
export function defaultSimulatorHint(
  error: { category: string },
  env: Record<string, string | undefined>,
): string {
  if (error.category !== 'network' || env.CONNECTOR_BASE_URL) return '';
  return (
    `\nhint: without CONNECTOR_BASE_URL, call goes to a \`change-bridge simulator\` at ` +
    `${SIMULATOR_DEFAULT_ENV.CONNECTOR_BASE_URL}: start one, or beside \`npm start\` add --via-bridge`
  );
}

/** Flags of `change-bridge call`. */
interface CallFlags {
  data: string;
  json?: boolean;
  viaBridge?: boolean;
  api?: string;
  connection?: string;
}

/**
 * The connection `--connection` names, checked as the bridge checks it; undefined without it.
 * @throws CliExit(2) for an id that is no connection id, or with a direct call (whose
 * credentials are the CONNECTOR_* variables).
 */
function connectionFlag(flags: CallFlags, viaBridge: boolean): string | undefined {
  if (flags.connection === undefined) return undefined;
  if (!viaBridge)
    throw new CliExit(
      EXIT_USAGE,
      '--connection: only with --via-bridge (or --api): a direct call goes with the CONNECTOR_* variables',
    );
  const parsed = ConnectionIdSchema.safeParse(flags.connection);
  if (!parsed.success)
    throw new CliExit(EXIT_USAGE, '--connection: must be 1 to 64 letters, digits, _ or -');
  return parsed.data;
}

/**
 * Registers `change-bridge call OPERATION [--data JSON | --data @file.json] [--via-bridge]
 * [--api URL] [--connection ID]`.
 */
export function registerCallCommand(
  program: Command,
  io: CliIo,
  setExit: (code: number) => void,
): void {
  program
    .command('call')
    .description(
      'Call one Connector API operation (e.g. customers/getAll): validates the body, adds the credentials ' +
        'from CONNECTOR_* variables (default: the local simulator at http://127.0.0.1:4010), prints the response JSON. ' +
        "A direct call keeps its own count of the token's 200 requests per 30 s: while a bridge polls the same " +
        'token, use --via-bridge so its calls take from the budget the bridge keeps.',
    )
    .argument('<operation>', `one of: ${OPERATION_NAMES.join(', ')}`)
    .option('--data <json>', 'request body as JSON, or @file.json', '{}')
    .option('--json', 'print compact JSON (one document)')
    .option(
      '--via-bridge',
      'send through the admin API of a running bridge (its connection credentials; writes publish events at once)',
    )
    .option(
      '--api <url>',
      'admin API base URL for --via-bridge (default http://127.0.0.1:$BRIDGE_PORT)',
    )
    .option(
      '--connection <id>',
      "with --via-bridge: the connection whose credentials the call goes with, one added with `connections add` included (default: the bridge's own: `local` under start, in AWS the only connection of the props)",
    )
    .action(async (operation: string, options: CallFlags) => {
      const viaBridge = options.viaBridge === true || options.api !== undefined;
      const connectionId = connectionFlag(options, viaBridge);
      const body = await readJsonArgument(options.data);
      const print = (value: unknown) =>
        io.out(options.json ? JSON.stringify(value) : JSON.stringify(value, null, 2));
      if (viaBridge) {
        const valid = validateCallBody(operation, body, 'bridge', connectionId);
        const api = resolveApiUrl(options.api, process.env);
        const result = await callViaBridge(
          api,
          valid.name,
          valid.body,
          process.env,
          undefined,
          connectionId,
        );
        if (result.status !== 200) throw bridgeCallFailure(valid.name, result);
        // Nothing to print: the connector's answer breaks its contract (a JSON object).
        if (result.body === undefined) {
          throw new CliExit(
            EXIT_FAILURE,
            `${valid.name}: the bridge answered 200 with an empty body, not JSON${appliedNote(valid.name, 200)}`,
          );
        }
        print(result.body);
        return;
      }
      refuseTokensWithoutBaseUrl(process.env);
      const env = process.env.CONNECTOR_BASE_URL
        ? process.env
        : { ...SIMULATOR_DEFAULT_ENV, ...process.env };
      const scopeText = env.CONNECTOR_PORTFOLIO_SCOPE;
      const scope = scopeText ? parsePortfolioScope(scopeText) : undefined;
      const valid = validateCallBody(operation, body, scope);
      // Loaded here, not with the CLI: the client's transport is undici, which no other
      // command needs before it sends.
      const { createConnectorClient } = await import('../connector/connector-client.ts');
      const client = createConnectorClient(connectorConfigFromEnv(env));
      try {
        const response = await client.call(valid.name, valid.body as never);
        print(response);
      } catch (error) {
        if (!(error instanceof ConnectorError)) throw error;
        // A 200 whose body breaks the contract: the write was applied all the same.
        const applied =
          error.category === 'response' ? appliedNote(valid.name, error.status ?? 0) : '';
        io.err(
          `error: ${error.message}${applied}${error.requestId ? ` (RequestId ${error.requestId})` : ''}` +
            (scope === undefined ? portfolioScopeHint(error) : '') +
            defaultSimulatorHint(error, process.env),
        );
        setExit(EXIT_FAILURE);
      } finally {
        await client.close();
      }
    });
}
