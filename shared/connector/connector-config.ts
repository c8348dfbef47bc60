import { z } from 'zod';
import packageJson from '../../package.json' with { type: 'json' };
import { EMPTY_ITEM_MESSAGE, splitCommaList } from '../comma-list.ts';
import { CONFIGURATION, configurationError } from '../configuration-error.ts';
import { parseEnvironment } from '../env-issues.ts';
import { fieldIssues, ValidationError, type ValidationIssue } from '../errors.ts';
import { withPlainMessages } from '../plain-message.ts';
import type { RateLimit } from './rate-limit.ts';
import { UuidSchema } from './records/common.ts';

/** Chain or enterprise scope of a Portfolio Access Token (connector-api.md, Authentication rule 3). */
export const PortfolioScopeSchema = z
  .object({
    // Sent as the ChainIds and EnterpriseIds filters of reads: 1 to 1000 each (connector-api.md).
    // Any GUID the service issues, as its records' ids (records/common.ts).
    chainIds: z.array(UuidSchema).max(1000).default([]),
    enterpriseIds: z.array(UuidSchema).max(1000).default([]),
  })
  // A misspelt key would leave the token's scope silently empty.
  .strict();
export type PortfolioScope = z.infer<typeof PortfolioScopeSchema>;

/**
 * Why a connection with `scope` cannot poll `entities`, or undefined when it can: customers
 * need a chain (customers/getAll requires ChainIds with a Portfolio Access Token), so a scope
 * of enterprises alone would fail every poll of the customer stream. Pure.
 */
export function portfolioScopeProblem(
  scope: { chainIds?: readonly string[] | undefined } | undefined,
  entities: readonly string[],
): string | undefined {
  if (!scope || (scope.chainIds?.length ?? 0) > 0 || !entities.includes('customer'))
    return undefined;
  return 'customer needs a chain (customers/getAll requires ChainIds with a Portfolio Access Token): add chain:<uuid> to the scope, or poll entities without customer';
}

/**
 * The Connector API's base URL (`CONNECTOR_BASE_URL`, a secret's `baseUrl`): http or https.
 * `z.url()` alone took `ftp://…` or `mailto:…`, and every poll then failed ("Invalid URL
 * protocol") in a bridge that had started as if all were well.
 */
export const ConnectorBaseUrlSchema = z.url({
  protocol: /^https?$/,
  error: 'must be an http or https URL, e.g. https://api.example.com',
});

/** One connection's credentials and client behaviour. */
export const ConnectorConfigSchema = z.object({
  baseUrl: ConnectorBaseUrlSchema,
  clientToken: z.string().min(1),
  accessToken: z.string().min(1),
  client: z.string().min(1),
  /** Set when the AccessToken is a Portfolio Access Token. */
  portfolioScope: PortfolioScopeSchema.optional(),
  timeoutMs: z.number().int().positive().optional(),
  /** Client-side budget per AccessToken; `false` turns the limiter off (tests, benchmarks). */
  rateLimit: z
    .union([
      z.object({ requests: z.number().int().positive(), windowMs: z.number().int().positive() }),
      z.literal(false),
    ])
    .optional(),
});
export type ConnectorConfig = z.input<typeof ConnectorConfigSchema>;
export type ResolvedRateLimit = RateLimit | false;

/**
 * The name and version this bridge reports in the envelope's `Client` field: the version is
 * package.json's (esbuild inlines the JSON into the Lambda bundles), so a release names itself.
 */
export const DEFAULT_CLIENT_NAME = `change-bridge ${packageJson.version}`;

/**
 * Parses `CONNECTOR_PORTFOLIO_SCOPE` (or the flag named by `source`): comma-separated
 * `chain:<uuid>` and `enterprise:<uuid>` entries, e.g. `chain:4d0201db-…,enterprise:8f7b…`;
 * a bare uuid is a chain.
 * @throws ValidationError (`configuration is invalid: CONNECTOR_PORTFOLIO_SCOPE[1]: …`) naming
 * `source` and the place of each entry without a known prefix or a uuid; a flag's message (a
 * `source` starting with `--`) shows the entry as typed, a variable's does not (its value may be
 * a secret set in the wrong variable).
 */
export function parsePortfolioScope(
  text: string,
  source = 'CONNECTOR_PORTFOLIO_SCOPE',
): PortfolioScope {
  const scope: PortfolioScope = { chainIds: [], enterpriseIds: [] };
  const typed = source.startsWith('--');
  const issues: ValidationIssue[] = [];
  for (const [index, entry] of splitCommaList(text).entries()) {
    const path = `${source}[${index}]`;
    if (entry === '') {
      // No text to show: a flag's empty entry is named by its place, as the CLI names items.
      issues.push({ path, message: `${typed ? `item ${index + 1}: ` : ''}${EMPTY_ITEM_MESSAGE}` });
      continue;
    }
    const colon = entry.indexOf(':');
    const kind = colon < 0 ? undefined : entry.slice(0, colon);
    const id = entry.slice(colon + 1);
    const isUuid = UuidSchema.safeParse(id).success;
    const shown = typed ? `${entry}: ` : '';
    // A bare uuid stands for a chain, as it always has; anything else needs its prefix.
    if (kind === 'chain' || kind === 'enterprise') {
      if (isUuid) (kind === 'chain' ? scope.chainIds : scope.enterpriseIds).push(id);
      else issues.push({ path, message: `${shown}the ${kind} id must be a uuid` });
    } else if (kind === undefined && isUuid) scope.chainIds.push(id);
    else
      issues.push({
        path,
        message: `${shown}needs the chain:<uuid> or enterprise:<uuid> prefix`,
      });
  }
  if (issues.length > 0) throw new ValidationError(CONFIGURATION, issues);
  const parsed = PortfolioScopeSchema.safeParse(scope);
  if (!parsed.success) {
    const [issue] = fieldIssues(withPlainMessages(parsed.error));
    throw configurationError(source, `${issue?.path}: ${issue?.message}`, parsed.error);
  }
  return parsed.data;
}

/**
 * `CONNECTOR_RATE_LIMIT`: `off` lifts the client's 200 requests / 30 s budget, for a connector
 * without that limit (a simulator started with its limit off, in benchmarks); the real service
 * always has it. Checked also on the built-in simulator, which does not read it.
 */
export const ConnectorRateLimitSchema = z.enum(['on', 'off']).default('on');

const ConnectorEnvSchema = z.object({
  CONNECTOR_BASE_URL: ConnectorBaseUrlSchema,
  CONNECTOR_CLIENT_TOKEN: z.string().min(1),
  CONNECTOR_ACCESS_TOKEN: z.string().min(1),
  CONNECTOR_CLIENT: z.string().min(1).default(DEFAULT_CLIENT_NAME),
  CONNECTOR_PORTFOLIO_SCOPE: z.string().optional(),
  CONNECTOR_RATE_LIMIT: ConnectorRateLimitSchema,
});

/**
 * Reads a connection from the environment (`CONNECTOR_BASE_URL`, `CONNECTOR_CLIENT_TOKEN`,
 * `CONNECTOR_ACCESS_TOKEN`, `CONNECTOR_CLIENT`, `CONNECTOR_PORTFOLIO_SCOPE`,
 * `CONNECTOR_RATE_LIMIT`).
 * @throws ValidationError naming the missing or malformed variable.
 */
export function connectorConfigFromEnv(env: Record<string, string | undefined>): ConnectorConfig {
  const parsed = parseEnvironment(ConnectorEnvSchema, env);
  return {
    baseUrl: parsed.CONNECTOR_BASE_URL,
    clientToken: parsed.CONNECTOR_CLIENT_TOKEN,
    accessToken: parsed.CONNECTOR_ACCESS_TOKEN,
    client: parsed.CONNECTOR_CLIENT,
    ...(parsed.CONNECTOR_PORTFOLIO_SCOPE
      ? { portfolioScope: parsePortfolioScope(parsed.CONNECTOR_PORTFOLIO_SCOPE) }
      : {}),
    ...(parsed.CONNECTOR_RATE_LIMIT === 'off' ? { rateLimit: false as const } : {}),
  };
}
