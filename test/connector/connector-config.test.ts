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

  it('names CONNECTOR_RATE_LIMIT when its value is neither on nor off', () => {
    expect(() => connectorConfigFromEnv({ ...env, CONNECTOR_RATE_LIMIT: 'fast' })).toThrow(
      ValidationError,
    );
    expect(() => connectorConfigFromEnv({ ...env, CONNECTOR_RATE_LIMIT: 'fast' })).toThrow(
      /CONNECTOR_RATE_LIMIT/,
    );
  });
});
