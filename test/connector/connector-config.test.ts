import { describe, expect, it } from 'vitest';
import { connectorConfigFromEnv } from '../../shared/connector/connector-config.ts';
import { ValidationError } from '../../shared/errors.ts';

const env = {
  CONNECTOR_BASE_URL: 'http://127.0.0.1:4010',
  CONNECTOR_CLIENT_TOKEN: 'client',
  CONNECTOR_ACCESS_TOKEN: 'access',
};

describe('connectorConfigFromEnv', () => {
  it('keeps the client budget of 200 requests per 30 s unless CONNECTOR_RATE_LIMIT is off', () => {
    expect(connectorConfigFromEnv(env).rateLimit).toBeUndefined();
    expect(
      connectorConfigFromEnv({ ...env, CONNECTOR_RATE_LIMIT: 'on' }).rateLimit,
    ).toBeUndefined();
    expect(connectorConfigFromEnv({ ...env, CONNECTOR_RATE_LIMIT: 'off' }).rateLimit).toBe(false);
  });

  it('takes a portfolio scope of at most 1,000 chains and 1,000 enterprises (the filters it becomes)', () => {
    const ids = (n: number) =>
      Array.from(
        { length: n },
        (_, i) => `enterprise:${`${i}`.padStart(8, '0')}-0000-4000-8000-000000000000`,
      );
    const scope = (n: number) => ({ ...env, CONNECTOR_PORTFOLIO_SCOPE: ids(n).join(',') });
    expect(connectorConfigFromEnv(scope(1000)).portfolioScope?.enterpriseIds).toHaveLength(1000);
    expect(() => connectorConfigFromEnv(scope(1001))).toThrow(/enterpriseIds/);
  });

  it('names CONNECTOR_RATE_LIMIT when its value is neither on nor off', () => {
    expect(() => connectorConfigFromEnv({ ...env, CONNECTOR_RATE_LIMIT: 'fast' })).toThrow(
      ValidationError,
    );
    expect(() => connectorConfigFromEnv({ ...env, CONNECTOR_RATE_LIMIT: 'fast' })).toThrow(
      /CONNECTOR_RATE_LIMIT/,
    );
  });
});
