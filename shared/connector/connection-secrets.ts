import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { z } from 'zod';
import { parseOrThrow, ValidationError } from '../errors.ts';
import {
  ConnectorBaseUrlSchema,
  type ConnectorConfig,
  DEFAULT_CLIENT_NAME,
  PortfolioScopeSchema,
} from './connector-config.ts';

/**
 * The JSON a connection's Secrets Manager secret holds (README, "Store the connection
 * credentials"): `{ "baseUrl", "clientToken", "accessToken", "client"?, "portfolioScope"? }`.
 */
export const ConnectionSecretSchema = z.object({
  baseUrl: ConnectorBaseUrlSchema,
  clientToken: z.string().min(1),
  accessToken: z.string().min(1),
  client: z.string().min(1).default(DEFAULT_CLIENT_NAME),
  portfolioScope: PortfolioScopeSchema.optional(),
});

/**
 * The name of a props connection's Secrets Manager secret: `<secretNamePrefix>/connections/<id>`.
 * The stack creates it under this name and the handlers ask for it by this name
 * (GetSecretValue takes a secret's name as well as its ARN), so the functions' environment
 * carries the ids and the prefix once instead of an ARN per connection: 20 ARNs of 40-character
 * ids would pass Lambda's 4 KB for a function's environment on their own.
 * @example connectionSecretName('change-bridge/prod', 'main') // 'change-bridge/prod/connections/main'
 */
export function connectionSecretName(secretNamePrefix: string, connectionId: string): string {
  return `${secretNamePrefix}/connections/${connectionId}`;
}

/**
 * `CONNECTION_SECRET_ARNS`: a JSON object from connection id to secret ARN (or name). The stack
 * sets `CONNECTION_IDS` and `CONNECTION_SECRET_PREFIX` instead; this form is still read.
 */
export const ConnectionSecretArnsSchema = z
  .string()
  .transform((text, context) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      context.addIssue({
        code: 'custom',
        message: 'must be a JSON object of connection id to secret ARN',
      });
      return z.NEVER;
    }
  })
  .pipe(z.record(z.string().regex(/^[A-Za-z0-9_-]+$/), z.string().min(1)));

/**
 * The deployment's one secret (README, "Connections"): the endpoint and the ClientToken every
 * connection stored as data shares, `{ "baseUrl", "clientToken", "client"? }`.
 */
export const DeploymentSecretSchema = z.object({
  baseUrl: ConnectorBaseUrlSchema,
  clientToken: z.string().min(1),
  client: z.string().min(1).default(DEFAULT_CLIENT_NAME),
});
/** The deployment's endpoint, ClientToken and Client name. */
export type DeploymentSecret = z.output<typeof DeploymentSecretSchema>;

/**
 * Reads a connection's credentials from Secrets Manager. The secret's value never appears in
 * an error message: a malformed secret is reported by field name only.
 */
export async function loadConnectionSecret(
  client: SecretsManagerClient,
  secretArn: string,
): Promise<ConnectorConfig> {
  const json = await readSecretJson(client, secretArn, 'connection secret');
  return parseOrThrow(ConnectionSecretSchema, json, `connection secret ${secretArn}`);
}

/** Reads the deployment secret; like {@link loadConnectionSecret}, never echoing its value. */
export async function loadDeploymentSecret(
  client: SecretsManagerClient,
  secretArn: string,
): Promise<DeploymentSecret> {
  const json = await readSecretJson(client, secretArn, 'deployment secret');
  return parseOrThrow(DeploymentSecretSchema, json, `deployment secret ${secretArn}`);
}

/**
 * What GetSecretValue says of a secret that holds no value (no version under the `AWSCURRENT`
 * label), as the stack creates every secret: "Secrets Manager can't find the specified secret
 * value for staging label: AWSCURRENT". A secret that does not exist at all is "… the specified
 * secret.", under the same error name.
 */
const NO_CURRENT_VALUE = /secret value for staging label/i;

/**
 * A connection or deployment secret that holds no value yet (the stack creates them empty):
 * a ValidationError (the admin API answers 400 naming the secret), told apart so the poller can
 * say so on the connection's streams instead of failing its job.
 */
export class SecretWithoutValueError extends ValidationError {
  override name = 'SecretWithoutValueError';
  constructor(
    /** Which secret: `connection secret` or `deployment secret`. */
    readonly what: string,
    /** The secret's name or ARN, as GetSecretValue was given it. */
    readonly secretId: string,
    options: { cause?: unknown } = {},
  ) {
    super(
      what,
      [{ path: secretId, message: 'has no value yet: store the credentials JSON' }],
      options,
    );
  }
}

/** Whether `error` is GetSecretValue's answer for a secret created without a value. */
function isSecretWithoutValue(error: unknown): boolean {
  return (
    error instanceof Error &&
    error.name === 'ResourceNotFoundException' &&
    NO_CURRENT_VALUE.test(error.message)
  );
}

async function readSecretJson(
  client: SecretsManagerClient,
  secretArn: string,
  what: string,
): Promise<unknown> {
  const noValue = (cause?: unknown) =>
    new SecretWithoutValueError(what, secretArn, cause === undefined ? {} : { cause });
  const result = await client
    .send(new GetSecretValueCommand({ SecretId: secretArn }))
    .catch((error: unknown) => {
      // In AWS an empty secret is this error, never an empty SecretString.
      throw isSecretWithoutValue(error) ? noValue(error) : error;
    });
  if (!result.SecretString) throw noValue();
  try {
    return JSON.parse(result.SecretString);
  } catch {
    throw new ValidationError(what, [{ path: secretArn, message: 'is not JSON' }]);
  }
}
