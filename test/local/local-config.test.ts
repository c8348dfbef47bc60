import { describe, expect, it } from 'vitest';
import { resolveApiUrl } from '../../shared/cli/admin/api-client.ts';
import { ValidationError } from '../../shared/errors.ts';
import { readLocalConfig } from '../../shared/local/local-config.ts';

describe('readLocalConfig', () => {
  it('keeps the local DynamoDB on the main thread unless BRIDGE_STORE_THREAD turns the thread on', () => {
    expect(readLocalConfig({}, {}).storeThread).toBe(false);
    expect(readLocalConfig({ BRIDGE_STORE_THREAD: 'true' }, {}).storeThread).toBe(true);
    expect(readLocalConfig({ BRIDGE_STORE_THREAD: '1' }, {}).storeThread).toBe(true);
    expect(readLocalConfig({ BRIDGE_STORE_THREAD: '0' }, {}).storeThread).toBe(false);
  });

  it('names BRIDGE_STORE_THREAD when its value is not a boolean', () => {
    expect(() => readLocalConfig({ BRIDGE_STORE_THREAD: 'yes' }, {})).toThrow(ValidationError);
    expect(() => readLocalConfig({ BRIDGE_STORE_THREAD: 'yes' }, {})).toThrow(
      /BRIDGE_STORE_THREAD/,
    );
  });
});

describe('a bad value of a start flag', () => {
  it('is named by the flag when given as one, and by the variable when set in the environment', () => {
    expect(() => readLocalConfig({}, { port: 'abc' })).toThrow(
      'configuration is invalid: --port: must be a port number from 0 to 65535',
    );
    expect(() => readLocalConfig({}, { pollInterval: 'xyz' })).toThrow(/--poll-interval: /);
    expect(() => readLocalConfig({ BRIDGE_PORT: 'abc' }, {})).toThrow(
      'configuration is invalid: BRIDGE_PORT: must be a port number from 0 to 65535',
    );
    expect(() => readLocalConfig({ POLL_INTERVAL: 'xyz' }, {})).toThrow(/POLL_INTERVAL: /);
  });

  it('refuses, on the built-in simulator, a token of a connection of one own and a bad SIMULATOR_RATE_LIMIT', () => {
    // Without CONNECTOR_BASE_URL the simulator would be polled instead, with no word said.
    expect(() => readLocalConfig({ CONNECTOR_ACCESS_TOKEN: 'mine' }, {})).toThrow(
      'CONNECTOR_BASE_URL: required with CONNECTOR_ACCESS_TOKEN',
    );
    expect(() => readLocalConfig({ CONNECTOR_PORTFOLIO_SCOPE: 'chain:x' }, {})).toThrow(
      /CONNECTOR_BASE_URL: required with CONNECTOR_PORTFOLIO_SCOPE/,
    );
    expect(() => readLocalConfig({ SIMULATOR_RATE_LIMIT: 'maybe' }, {})).toThrow(
      'SIMULATOR_RATE_LIMIT: must be on or off; the value set has 5 characters',
    );
    expect(
      readLocalConfig({ SIMULATOR_RATE_LIMIT: 'off', CONNECTOR_ACCESS_TOKEN: '' }, {}),
    ).toMatchObject({ externalConnector: false });
  });

  it('refuses on the built-in simulator a CONNECTOR_RATE_LIMIT it would refuse with CONNECTOR_BASE_URL', () => {
    expect(() => readLocalConfig({ CONNECTOR_RATE_LIMIT: 'maybe' }, {})).toThrow(
      /CONNECTOR_RATE_LIMIT: must be on or off/,
    );
    expect(readLocalConfig({ CONNECTOR_RATE_LIMIT: 'off' }, {})).toMatchObject({
      externalConnector: false,
    });
  });

  it('takes an empty BRIDGE_PORT as unset (port 4000, as the admin commands do), and only whole ports', () => {
    expect(readLocalConfig({ BRIDGE_PORT: '' }, {}).port).toBe(4000);
    expect(readLocalConfig({ BRIDGE_PORT: '4100' }, {}).port).toBe(4100);
    expect(readLocalConfig({}, { port: '0' }).port).toBe(0);
    for (const port of [' ', '4.5', '-1', '65536', '0x10', ' 4100']) {
      expect(() => readLocalConfig({ BRIDGE_PORT: port }, {})).toThrow(
        /BRIDGE_PORT: (must be|65536 is not) a port number from 0 to 65535/,
      );
    }
  });

  it('refuses an empty --port, which names no port, instead of taking it for unset', () => {
    // Before, `--port ''` listened on 4000 whatever BRIDGE_PORT said.
    for (const env of [{}, { BRIDGE_PORT: '4100' }]) {
      expect(() => readLocalConfig(env, { port: '' })).toThrow(
        'configuration is invalid: --port: must be a port number from 0 to 65535',
      );
    }
    expect(readLocalConfig({ BRIDGE_PORT: '' }, { port: '4100' }).port).toBe(4100);
  });

  it('refuses a port fetch and browsers never connect to, naming --port or BRIDGE_PORT and why', () => {
    // Before, start listened on 6000 and neither the CLI (fetch: bad port) nor the console could reach it.
    for (const port of ['6000', '6665', '6669', '10080', '1', '5060']) {
      expect(() => readLocalConfig({}, { port }), port).toThrow(
        `configuration is invalid: --port: ${port} is a port fetch and browsers never connect to`,
      );
      expect(() => readLocalConfig({ BRIDGE_PORT: port }, {}), port).toThrow(
        `configuration is invalid: BRIDGE_PORT: ${port} is a port fetch and browsers never connect to`,
      );
    }
    expect(readLocalConfig({}, { port: '6001' }).port).toBe(6001);
    expect(readLocalConfig({ BRIDGE_PORT: '10081' }, {}).port).toBe(10081);
  });

  it('names a refused BRIDGE_PORT of digits once, without its length; hides any other value behind its length', () => {
    // Before, BRIDGE_PORT=6000 read "6000 is a port …; the value set has 4 characters": the value twice.
    const refusal = (env: Record<string, string>) => {
      try {
        readLocalConfig(env, {});
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refusal({ BRIDGE_PORT: '6000' })).toBe(
      'configuration is invalid: BRIDGE_PORT: 6000 is a port fetch and browsers never connect to (WHATWG "bad ports"): neither the CLI nor the console could reach the admin API; choose another',
    );
    expect(refusal({ BRIDGE_PORT: '99999' })).toBe(
      'configuration is invalid: BRIDGE_PORT: 99999 is not a port number from 0 to 65535',
    );
    expect(refusal({ BRIDGE_PORT: 'sk_live_abc' })).toBe(
      'configuration is invalid: BRIDGE_PORT: must be a port number from 0 to 65535; the value set has 11 characters',
    );
    expect(() => readLocalConfig({}, { port: '99999' })).toThrow(
      'configuration is invalid: --port: 99999 is not a port number from 0 to 65535',
    );
    // The admin commands read BRIDGE_PORT by the same rule.
    expect(() => resolveApiUrl(undefined, { BRIDGE_PORT: '99999' })).toThrow(
      /^configuration is invalid: BRIDGE_PORT: 99999 is not a port \(1-65535\)$/,
    );
    expect(() => resolveApiUrl(undefined, { BRIDGE_PORT: 'x' })).toThrow(
      /^configuration is invalid: BRIDGE_PORT: is not a port \(1-65535\); the value set has 1 character$/,
    );
  });

  it('refuses a poll interval under 100ms: a bare 5 is 5 ms, not 5 s', () => {
    expect(() => readLocalConfig({ POLL_INTERVAL: '5' }, {})).toThrow(
      'POLL_INTERVAL: must be at least 100ms (a bare number is milliseconds)',
    );
    expect(() => readLocalConfig({}, { pollInterval: '50ms' })).toThrow(/--poll-interval: /);
    expect(readLocalConfig({ POLL_INTERVAL: '5s' }, {}).pollIntervalMs).toBe(5000);
    expect(readLocalConfig({ POLL_INTERVAL: '100' }, {}).pollIntervalMs).toBe(100);
  });

  it('refuses a poll interval over a day, as a connection refuses one: a stream due past the last date a Date holds made GET /streams answer 500', () => {
    expect(() => readLocalConfig({ POLL_INTERVAL: '99999999d' }, {})).toThrow(
      'POLL_INTERVAL: must be at most 1d',
    );
    expect(() => readLocalConfig({}, { pollInterval: '25h' })).toThrow(
      '--poll-interval: must be at most 1d',
    );
    expect(readLocalConfig({ POLL_INTERVAL: '1d' }, {}).pollIntervalMs).toBe(86_400_000);
  });

  it('checks the variables the runtime reads later, so a bad one stops start before anything opens', () => {
    expect(() => readLocalConfig({ BRIDGE_MAX_BACKLOG: 'abc' }, {})).toThrow(/BRIDGE_MAX_BACKLOG/);
    expect(() => readLocalConfig({ POLL_PRODUCT_IDS: 'x@Mars/Base' }, {})).toThrow(
      /POLL_PRODUCT_IDS/,
    );
    expect(() => readLocalConfig({ SIMULATOR_SIZE: 'huge' }, {})).toThrow(/SIMULATOR_SIZE/);
    // SIMULATOR_SIZE means nothing with a connector of one's own.
    const external = {
      CONNECTOR_BASE_URL: 'https://api.example.com',
      CONNECTOR_CLIENT_TOKEN: 'client',
      CONNECTOR_ACCESS_TOKEN: 'access',
      SIMULATOR_SIZE: 'huge',
    };
    expect(readLocalConfig(external, {}).externalConnector).toBe(true);
  });
});

describe('the dispatcher settings of start', () => {
  it('default to 15 s requests, failing after 4 failures, disabled after 5 days, and follow the variables', () => {
    expect(readLocalConfig({}, {}).dispatch).toEqual({
      deliveryTimeoutMs: 15_000,
      config: { failingAfterFailures: 4, disableAfterMs: 5 * 86_400_000 },
    });
    const env = {
      DELIVERY_TIMEOUT_MS: '2000',
      WEBHOOK_FAILING_AFTER: '2',
      WEBHOOK_DISABLE_AFTER: '30m',
    };
    expect(readLocalConfig(env, {}).dispatch).toEqual({
      deliveryTimeoutMs: 2000,
      config: { failingAfterFailures: 2, disableAfterMs: 30 * 60_000 },
    });
    expect(() => readLocalConfig({ WEBHOOK_DISABLE_AFTER: '10ms' }, {})).toThrow(
      'WEBHOOK_DISABLE_AFTER: must be at least 1s',
    );
    expect(() => readLocalConfig({ WEBHOOK_FAILING_AFTER: '0' }, {})).toThrow(
      /WEBHOOK_FAILING_AFTER/,
    );
  });
});

describe('the whole-number variables of start', () => {
  it('take decimal digits only, as BRIDGE_PORT does, where coercion took hex, exponents and blanks', () => {
    // Before, POLL_CONCURRENCY=0x10 polled 16 streams at once, DELIVERY_TIMEOUT_MS=1e3 waited
    // 1 s and WEBHOOK_FAILING_AFTER=" 2" counted 2.
    const variables = [
      'POLL_CONCURRENCY',
      'POLL_MAX_RECORDS_IN_FLIGHT',
      'DELIVERY_TIMEOUT_MS',
      'WEBHOOK_FAILING_AFTER',
    ];
    for (const variable of variables) {
      for (const value of ['0x10', '2e3', ' 2000', '2000 ', '2000.0']) {
        expect(() => readLocalConfig({ [variable]: value }, {}), `${variable}=${value}`).toThrow(
          new RegExp(`${variable}: must be a whole number in decimal digits`),
        );
      }
    }
    const config = readLocalConfig(
      {
        POLL_CONCURRENCY: '16',
        POLL_MAX_RECORDS_IN_FLIGHT: '5000',
        DELIVERY_TIMEOUT_MS: '2000',
        WEBHOOK_FAILING_AFTER: '2',
      },
      {},
    );
    expect(config).toMatchObject({
      pollConcurrency: 16,
      pollMaxRecordsInFlight: 5000,
      dispatch: { deliveryTimeoutMs: 2000, config: { failingAfterFailures: 2 } },
    });
    for (const value of ['0x10', '2e3', ' 2000']) {
      expect(() => readLocalConfig({ BRIDGE_MAX_BACKLOG: value }, {}), value).toThrow(
        `BRIDGE_MAX_BACKLOG: must be a positive integer; the value set has ${value.length} characters`,
      );
    }
  });
});

describe('the poll settings of start', () => {
  it('are checked with the rest of the configuration, before anything opens', () => {
    // Before, they were read only once the data dir, the store and the queue were open: a start
    // refused for them left a new data dir behind, and a locked one was reported first.
    for (const [variable, value] of [
      ['POLL_OVERLAP', '2d'],
      ['POLL_SETTLE_LAG', 'soon'],
      ['CONNECTOR_BUDGET_MARGIN', '1d'],
      ['POLL_HISTORY_START', '2999-01-01'],
      ['INITIAL_SYNC', 'everything'],
    ] as const) {
      expect(() => readLocalConfig({ [variable]: value }, {}), variable).toThrow(ValidationError);
      expect(() => readLocalConfig({ [variable]: value }, {}), variable).toThrow(
        new RegExp(variable),
      );
    }
    expect(() => readLocalConfig({ POLL_OVERLAP: '10s' }, {})).not.toThrow();
  });
});

describe('a connector of one own, named by CONNECTOR_BASE_URL', () => {
  it('needs its tokens, checked before anything opens', () => {
    // Before, start created the data dir, then found the tokens missing (exit 2 all the same).
    expect(() => readLocalConfig({ CONNECTOR_BASE_URL: 'http://127.0.0.1:9' }, {})).toThrow(
      /CONNECTOR_ACCESS_TOKEN/,
    );
    expect(() =>
      readLocalConfig(
        {
          CONNECTOR_BASE_URL: 'http://127.0.0.1:9',
          CONNECTOR_CLIENT_TOKEN: 'client',
          CONNECTOR_ACCESS_TOKEN: 'access',
        },
        {},
      ),
    ).not.toThrow();
  });
});

describe('a BRIDGE_ADMIN_TOKEN no header can carry', () => {
  it.each([
    ['a line break inside', 'tok-1\ntok-2'],
    ['a control character', 'tok\u0001en'],
    ['a character beyond ASCII', 'tok-密码'],
  ])('with %s is refused naming BRIDGE_ADMIN_TOKEN, without printing it', (_what, token) => {
    // Before, start took it, and neither the CLI nor the console could ever send it.
    let error: unknown;
    try {
      readLocalConfig({ BRIDGE_ADMIN_TOKEN: token }, {});
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ValidationError);
    const message = (error as ValidationError).message;
    expect(message).toContain('BRIDGE_ADMIN_TOKEN: must be printable ASCII');
    expect(message).not.toContain(token);
  });

  it('is taken trimmed when only its surrounding blanks are not printable', () => {
    expect(readLocalConfig({ BRIDGE_ADMIN_TOKEN: ' tok en\n' }, {}).adminToken).toBe('tok en');
  });
});
