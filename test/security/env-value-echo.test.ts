import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { readAdminApiEnv } from '../../functions/admin-api.ts';
import { escapingError } from '../../functions/handler-boundary.ts';
import { PollLambdaEnvSchema, readPollLambdaEnv } from '../../functions/poll-env.ts';
import { WebhookLambdaEnvSchema } from '../../functions/webhook-deps.ts';
import { resolveApiUrl } from '../../shared/cli/admin/api-client.ts';
import { connectorConfigFromEnv } from '../../shared/connector/connector-config.ts';
import { LocalEnvSchema, readLocalConfig } from '../../shared/local/local-config.ts';
import { PollEnvSchema } from '../../shared/polling/poll-settings.ts';
import { TrackedTargetsEnvSchema } from '../../shared/polling/tracked-targets.ts';
import { parsePublisherConfig } from '../../shared/publish/publisher-config.ts';
import { DispatcherEnvSchema } from '../../shared/webhooks/dispatcher-env.ts';

/*
 * A secret pasted into the wrong variable (a ClientToken into POLL_INTERVAL) must not be
 * printed back: the error reaches the terminal of `change-bridge start` and, through the
 * handlers' boundary, a Lambda's CloudWatch log.
 */

const TOKEN = 'ctok_9f8e7d6c5b4a39281726354433221100';
/** A token that is also a valid host name (hex digits only). */
const HEX_TOKEN = '9f8e7d6c5b4a39281726354433221100';

const CONNECTOR = {
  CONNECTOR_BASE_URL: 'http://127.0.0.1:9',
  CONNECTOR_CLIENT_TOKEN: 'client',
  CONNECTOR_ACCESS_TOKEN: 'access',
};

const POLL_LAMBDA = {
  STATE_TABLE_NAME: 'bridge',
  POLL_JOB_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/poll-jobs',
  CONNECTION_IDS: 'main',
  CONNECTION_SECRET_PREFIX: 'change-bridge/prod',
};

const WEBHOOK_LAMBDA = {
  STATE_TABLE_NAME: 'bridge',
  DISPATCH_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/dispatch',
  EVENT_BUS_NAME: 'bridge-bus',
};

/**
 * All a log would show of what `read` throws: the error as the Lambda boundary lets it escape
 * (message, stack and causes), inspected as the runtime prints it.
 */
function printedFailure(read: () => unknown): string {
  try {
    read();
  } catch (error) {
    return inspect(escapingError(error), { depth: 10 });
  }
  throw new Error('expected the configuration to be refused');
}

/** Whether a run of 12 or more characters of `secret` appears in `text`. */
function showsPartOf(text: string, secret: string): boolean {
  for (let start = 0; start + 12 <= secret.length; start += 1)
    if (text.includes(secret.slice(start, start + 12))) return true;
  return false;
}

const START_CASES: [string, Record<string, string>][] = [
  ['POLL_INTERVAL', { POLL_INTERVAL: TOKEN }],
  ['WEBHOOK_DISABLE_AFTER', { WEBHOOK_DISABLE_AFTER: TOKEN }],
  ['CONNECTOR_BASE_URL', { ...CONNECTOR, CONNECTOR_BASE_URL: TOKEN }],
  ['BRIDGE_MAX_BACKLOG', { BRIDGE_MAX_BACKLOG: TOKEN }],
  ['DELIVERY_TIMEOUT_MS', { DELIVERY_TIMEOUT_MS: TOKEN }],
  ['POLL_OVERLAP', { ...CONNECTOR, POLL_OVERLAP: TOKEN }],
  ['POLL_HISTORY_START', { ...CONNECTOR, POLL_HISTORY_START: TOKEN }],
  ['POLL_PRODUCT_IDS', { ...CONNECTOR, POLL_PRODUCT_IDS: TOKEN }],
  ['POLL_PRODUCT_IDS', { ...CONNECTOR, POLL_PRODUCT_IDS: `${crypto.randomUUID()}@${TOKEN}` }],
  ['CONNECTOR_PORTFOLIO_SCOPE', { ...CONNECTOR, CONNECTOR_PORTFOLIO_SCOPE: TOKEN }],
  ['CONNECTOR_PORTFOLIO_SCOPE', { ...CONNECTOR, CONNECTOR_PORTFOLIO_SCOPE: `chain:${TOKEN}` }],
  ['SIMULATOR_SIZE', { SIMULATOR_SIZE: TOKEN }],
  ['SIMULATOR_RATE_LIMIT', { SIMULATOR_RATE_LIMIT: TOKEN }],
  ['BRIDGE_ALLOWED_HOSTS', { BRIDGE_ALLOWED_HOSTS: `${TOKEN} x` }],
  // Valid as a host: refused only because no BRIDGE_ADMIN_TOKEN guards it.
  ['BRIDGE_ALLOWED_HOSTS', { BRIDGE_ALLOWED_HOSTS: TOKEN }],
  ['BRIDGE_HOST', { BRIDGE_HOST: HEX_TOKEN }],
];

describe('a secret set in the wrong variable', () => {
  it.each(START_CASES)('is not shown by start, whose error names %s', (variable, env) => {
    const printed = printedFailure(() => readLocalConfig(env, {}));
    expect(printed).toContain(variable);
    expect(showsPartOf(printed, TOKEN) || printed.includes(HEX_TOKEN), printed).toBe(false);
  });

  it('is not shown by start for any variable it reads, when it refuses the value', () => {
    const variables = Object.keys({
      ...LocalEnvSchema.shape,
      ...DispatcherEnvSchema.shape,
      ...PollEnvSchema.shape,
      ...TrackedTargetsEnvSchema.shape,
    });
    for (const variable of variables) {
      const env = { ...CONNECTOR, [variable]: TOKEN };
      try {
        readLocalConfig(env, {});
      } catch (error) {
        const printed = inspect(escapingError(error), { depth: 10 });
        expect(showsPartOf(printed, TOKEN), printed).toBe(false);
      }
    }
  });

  it.each([
    ['POLL_INTERVAL'],
    ['POLL_SETTLE_LAG'],
    ['CONNECTOR_BUDGET_MARGIN'],
    ['POLL_HISTORY_START'],
    ['POLL_EXPORT_IDS'],
    ['POLL_PRODUCT_IDS'],
    ['POLL_JOB_QUEUE_URL'],
    ['CONNECTION_SECRET_ARNS'],
  ])('is not shown by the planner and poller Lambdas, whose error names %s', (variable) => {
    const printed = printedFailure(() =>
      readPollLambdaEnv({ ...POLL_LAMBDA, [variable]: TOKEN }, Date.UTC(2026, 0, 1)),
    );
    expect(printed).toContain(variable);
    expect(showsPartOf(printed, TOKEN), printed).toBe(false);
  });

  it.each([
    ['WEBHOOK_DISABLE_AFTER'],
    ['WEBHOOK_FAILING_AFTER'],
    ['DELIVERY_TIMEOUT_MS'],
    ['WEBHOOK_ALLOW_PRIVATE'],
  ])('is not shown by the dispatcher and admin Lambdas, whose error names %s', (variable) => {
    const env = { ...POLL_LAMBDA, ...WEBHOOK_LAMBDA, [variable]: TOKEN };
    const printed = printedFailure(() => readAdminApiEnv(env, Date.UTC(2026, 0, 1)));
    expect(printed).toContain(variable);
    expect(showsPartOf(printed, TOKEN), printed).toBe(false);
  });

  it('is not shown by a Lambda for any variable it reads, when it refuses the value', () => {
    const variables = Object.keys({
      ...PollLambdaEnvSchema.shape,
      ...WebhookLambdaEnvSchema.shape,
      ...PollEnvSchema.shape,
      ...TrackedTargetsEnvSchema.shape,
    });
    for (const variable of variables) {
      const env = { ...POLL_LAMBDA, ...WEBHOOK_LAMBDA, [variable]: TOKEN };
      try {
        readAdminApiEnv(env, Date.UTC(2026, 0, 1));
      } catch (error) {
        const printed = inspect(escapingError(error), { depth: 10 });
        expect(showsPartOf(printed, TOKEN), printed).toBe(false);
      }
    }
  });

  it.each([
    ['PUBLISH_TARGETS'],
    ['PUBLISH_EVENT_BUS_MODE'],
    ['PUBLISH_QUEUE_URL'],
    ['PUBLISH_QUEUE_FIFO'],
  ])('is not shown by the publisher configuration, whose error names %s', (variable) => {
    const printed = printedFailure(() => parsePublisherConfig({ [variable]: TOKEN }));
    expect(printed).toContain(variable);
    expect(showsPartOf(printed, TOKEN), printed).toBe(false);
  });

  it.each([['CONNECTOR_BASE_URL'], ['CONNECTOR_RATE_LIMIT'], ['CONNECTOR_PORTFOLIO_SCOPE']])(
    'is not shown by the connector configuration, whose error names %s',
    (variable) => {
      const printed = printedFailure(() =>
        connectorConfigFromEnv({ ...CONNECTOR, [variable]: TOKEN }),
      );
      expect(printed).toContain(variable);
      expect(showsPartOf(printed, TOKEN), printed).toBe(false);
    },
  );

  it('is not shown by the admin commands, whose error names BRIDGE_PORT', () => {
    const printed = printedFailure(() => resolveApiUrl(undefined, { BRIDGE_PORT: TOKEN }));
    expect(printed).toContain('BRIDGE_PORT');
    expect(showsPartOf(printed, TOKEN), printed).toBe(false);
  });

  it('is described by its length, so a value far too long for the variable stands out', () => {
    expect(() => readLocalConfig({ POLL_INTERVAL: TOKEN }, {})).toThrow(
      `POLL_INTERVAL: is not a duration (e.g. 500ms, 5s, 1m, 2h); the value set has ${TOKEN.length} characters`,
    );
  });
});
