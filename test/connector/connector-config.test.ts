import { describe, expect, it } from 'vitest';
import {
  connectorConfigFromEnv,
  parsePortfolioScope,
} from '../../shared/connector/connector-config.ts';
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

  it.each(['ftp://127.0.0.1:4010', 'mailto:ops@example.com', 'file:///tmp/x'])(
    'names CONNECTOR_BASE_URL when %s is no http or https URL',
    (url) => {
      expect(() => connectorConfigFromEnv({ ...env, CONNECTOR_BASE_URL: url })).toThrow(
        'CONNECTOR_BASE_URL: must be an http or https URL',
      );
    },
  );

  it('takes an https base URL, and one with a path (a proxy)', () => {
    for (const url of ['https://api.example.com', 'http://127.0.0.1:8080/connector'])
      expect(connectorConfigFromEnv({ ...env, CONNECTOR_BASE_URL: url }).baseUrl).toBe(url);
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

describe('parsePortfolioScope', () => {
  const chain = '4d0201db-6bb9-4c9d-8bd0-3a1a0e7d0b5f';
  const enterprise = '8f7b0c1e-2d3a-4b5c-9d6e-7f8091a2b3c4';

  it('reads chain: and enterprise: entries, and a bare uuid as a chain', () => {
    expect(parsePortfolioScope(`chain:${chain}, enterprise:${enterprise}`)).toEqual({
      chainIds: [chain],
      enterpriseIds: [enterprise],
    });
    expect(parsePortfolioScope(chain).chainIds).toEqual([chain]);
  });

  it('names the source and the entry that lacks its prefix (a flag by its text, the variable by its place only), not a chain id never given', () => {
    const prefix = 'needs the chain:<uuid> or enterprise:<uuid> prefix';
    const cases: [string, string][] = [
      ['bogus', `[0]: bogus: ${prefix}`],
      ['x:y', `[0]: x:y: ${prefix}`],
      [`chain:${chain},team:${enterprise}`, `[1]: team:${enterprise}: ${prefix}`],
    ];
    for (const [text, message] of cases) {
      expect(() => parsePortfolioScope(text, '--portfolio-scope')).toThrow(
        `configuration is invalid: --portfolio-scope${message}`,
      );
    }
    expect(() => parsePortfolioScope('enterprise:nope')).toThrow(
      'configuration is invalid: CONNECTOR_PORTFOLIO_SCOPE[0]: the enterprise id must be a uuid',
    );
  });
});
