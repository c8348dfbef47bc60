import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  defaultSimulatorHint,
  portfolioScopeHint,
  refuseTokensWithoutBaseUrl,
  validateCallBody,
} from '../../shared/cli/call-command.ts';
import { runCli } from '../../shared/cli/main.ts';
import { systemClock } from '../../shared/clock.ts';
import { connectorEnvOf } from '../../shared/simulator/connector-env.ts';
import { startSimulator } from '../../shared/simulator/simulator.ts';
import { type JsonServer, startJsonServer } from '../support/json-server.ts';
import { runBin } from '../support/run-bin.ts';
import { runCliHere } from '../support/run-cli.ts';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) }, out, err };
}

let server: JsonServer;
beforeAll(async () => {
  server = await startJsonServer((request) =>
    request.path.endsWith('taxEnvironments/getAll')
      ? {
          body: {
            TaxEnvironments: [
              {
                Code: 'AT-2020',
                CountryCode: 'AUT',
                TaxationCodes: ['AT'],
                ValidityStartUtc: null,
                ValidityEndUtc: null,
              },
            ],
          },
        }
      : { status: 401, body: { Message: 'Invalid AccessToken', RequestId: 'r-1' } },
  );
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await server.close();
});

describe('change-bridge call', () => {
  it('exits 2 naming Limitation.Count and sends nothing (real executable)', async () => {
    const result = await runBin(
      ['call', 'customers/getAll', '--data', '{"Limitation":{"Count":0}}'],
      {
        CONNECTOR_BASE_URL: server.url,
      },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Limitation.Count');
    expect(server.requests).toHaveLength(0);
  });

  it('prints the response with credentials from the environment', async () => {
    const env = {
      CONNECTOR_BASE_URL: server.url,
      CONNECTOR_CLIENT_TOKEN: 'ct',
      CONNECTOR_ACCESS_TOKEN: 'at',
    };
    // Stubbed, and restored after the file: the files of a worker share one process (isolate:
    // false), and a connector left in process.env would reach every later `start` it spawns.
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    const { io, out } = capture();
    const code = await runCli(['call', 'taxEnvironments/getAll', '--json'], io);
    expect(code).toBe(0);
    expect(JSON.parse(out.join(''))).toMatchObject({ TaxEnvironments: [{ Code: 'AT-2020' }] });
    expect(server.requests.at(-1)!.body).toMatchObject({ ClientToken: 'ct', AccessToken: 'at' });
  });

  it('exits 1 with the API message on a remote failure', async () => {
    const { io, err } = capture();
    const code = await runCli(
      [
        'call',
        'exports/getAll',
        '--data',
        '{"ExportIds":["6f8b1c84-61b5-4b52-9c29-6a4d3c0e1f11"]}',
      ],
      io,
    );
    expect(code).toBe(1);
    expect(err.join('')).toContain('Invalid AccessToken');
  });

  it('checks a body as the client sends it: completed with the Portfolio Access Token scope first', async () => {
    const chain = '4d0201db-36f5-428b-8d11-4f0a65e960cc';
    const body = '{"Limitation":{"Count":2},"Extent":{"Customers":true}}';
    const env = { CONNECTOR_BASE_URL: server.url, CONNECTOR_ACCESS_TOKEN: 'portfolio' };
    // A plain token: no filter at all is refused before anything is sent (in this process: the
    // executable's own exit path is the first test's).
    const plain = await runCliHere(['call', 'customers/getAll', '--data', body], env);
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain('CustomerIds');
    // A Portfolio Access Token: ChainIds comes from the configured scope, and is a filter.
    const sent = server.requests.length;
    const scoped = await runCliHere(['call', 'customers/getAll', '--data', body], {
      ...env,
      CONNECTOR_PORTFOLIO_SCOPE: `chain:${chain}`,
    });
    expect(scoped.code, scoped.stderr).toBe(1); // the test server refuses the token
    expect(server.requests.slice(sent).map((r) => r.body)).toEqual([
      expect.objectContaining({ ChainIds: [chain], Limitation: { Count: 2 } }),
    ]);
  });

  it('refuses a body carrying a connector credential, saying they are added from the configuration', () => {
    const body = { Limitation: { Count: 2 }, Extent: { Customers: true }, ClientToken: 'ct' };
    // A direct call: the CONNECTOR_* variables are where they come from.
    expect(() => validateCallBody('customers/getAll', body)).toThrow(
      'ClientToken: leave it out: ClientToken, AccessToken and Client are added from the CONNECTOR_* variables',
    );
  });

  it('refuses a credential of a call through the bridge naming the bridge’s connection, not the CONNECTOR_* variables', () => {
    const body = { Limitation: { Count: 2 }, Extent: { Customers: true }, AccessToken: 'at' };
    const refusal = (connectionId?: string) => {
      try {
        validateCallBody('customers/getAll', body, 'bridge', connectionId);
      } catch (error) {
        return (error as Error).message;
      }
      return '';
    };
    expect(refusal('hotel-2')).toContain(
      'AccessToken: leave it out: ClientToken, AccessToken and Client are added from connection hotel-2, by the bridge',
    );
    expect(refusal()).toContain(
      "AccessToken: leave it out: ClientToken, AccessToken and Client are added from the bridge's default connection, by the bridge (another with --connection)",
    );
    expect(refusal('hotel-2')).not.toContain('CONNECTOR_');
    expect(refusal()).not.toContain('CONNECTOR_');
  });

  it('does not take ChainIds as the filter of customers/getAll without a Portfolio Access Token scope', () => {
    const chain = '4d0201db-36f5-428b-8d11-4f0a65e960cc';
    const body = { Limitation: { Count: 2 }, Extent: { Customers: true }, ChainIds: [chain] };
    // No scope configured: an ordinary AccessToken, whose ChainIds the service ignores (#1).
    expect(() => validateCallBody('customers/getAll', body)).toThrow(
      /CustomerIds: required when no other filter/,
    );
    // A scope configured here, or one the bridge holds: a Portfolio Access Token's ChainIds.
    expect(
      validateCallBody('customers/getAll', body, { chainIds: [chain], enterpriseIds: [] }),
    ).toMatchObject({ name: 'customers/getAll', body });
    expect(validateCallBody('customers/getAll', body, 'bridge')).toMatchObject({ body });
  });

  it('exits 2 for an unknown operation and for malformed JSON', async () => {
    const first = capture();
    expect(await runCli(['call', 'customers/nope'], first.io)).toBe(2);
    const second = capture();
    expect(await runCli(['call', 'customers/getAll', '--data', '{oops'], second.io)).toBe(2);
    expect(second.err.join('')).toContain('--data: not valid JSON');
    const third = capture();
    expect(
      await runCli(['call', 'customers/getAll', '--data', '@/nonexistent.json'], third.io),
    ).toBe(2);
    // Named once: before, '--data is invalid: --data: cannot read …'.
    expect(third.err.join('')).toContain('error: --data: cannot read /nonexistent.json (ENOENT)');
  });

  it('exits 2 for --data @ without a file, saying a path must follow the @', async () => {
    const result = capture();
    expect(await runCli(['call', 'customers/getAll', '--data', '@'], result.io)).toBe(2);
    expect(result.err.join('')).toContain('error: --data: @ names no file (--data @file.json)');
  });
});

describe('change-bridge call with a Portfolio Access Token and no CONNECTOR_PORTFOLIO_SCOPE', () => {
  it('exits 1 with the API message and a hint naming CONNECTOR_PORTFOLIO_SCOPE (simulator)', async () => {
    const sim = await startSimulator({ seed: 5, size: 'small', clock: systemClock });
    try {
      const customerId = [...sim.controls.model.customers.all()][0]!.record.Id;
      const result = await runCliHere(
        [
          'call',
          'customers/getAll',
          '--data',
          JSON.stringify({
            CustomerIds: [customerId],
            Extent: { Customers: true },
            Limitation: { Count: 1 },
          }),
        ],
        { ...connectorEnvOf(sim), CONNECTOR_ACCESS_TOKEN: sim.tokens.portfolioToken },
      );
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('required with a Portfolio Access Token');
      expect(result.stderr).toContain('hint: a Portfolio Access Token needs its scope');
      expect(result.stderr).toContain('CONNECTOR_PORTFOLIO_SCOPE');
    } finally {
      await sim.close();
    }
  });

  it('gives no such hint for other failures', () => {
    expect(portfolioScopeHint({ status: 401, message: 'Invalid AccessToken' })).toBe('');
    expect(portfolioScopeHint({ status: 400, message: 'Limitation.Count: too big' })).toBe('');
  });
});

describe('change-bridge call without CONNECTOR_BASE_URL', () => {
  it('hints at change-bridge simulator and --via-bridge when nothing answers at its default address', () => {
    const hint = defaultSimulatorHint({ category: 'network' }, { CONNECTOR_BASE_URL: undefined });
    expect(hint).toContain('change-bridge simulator');
    expect(hint).toContain('http://127.0.0.1:4010');
    expect(hint).toContain('--via-bridge');
  });

  it('exits 2 naming CONNECTOR_BASE_URL when a token of its own is set without it, and sends nothing', async () => {
    // The simulator's default address is a port any local process may hold: a real token whose
    // base URL was forgotten would have been sent there.
    const result = await runCliHere(['call', 'taxEnvironments/getAll'], {
      CONNECTOR_BASE_URL: undefined,
      CONNECTOR_CLIENT_TOKEN: undefined,
      CONNECTOR_ACCESS_TOKEN: 'a-real-access-token',
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'CONNECTOR_BASE_URL: required with CONNECTOR_ACCESS_TOKEN: without it call goes to a change-bridge simulator at http://127.0.0.1:4010',
    );
    expect(result.stderr).not.toContain('a-real-access-token');
  });

  it('takes the simulator tokens themselves, or a base URL, beside a token', () => {
    expect(() =>
      refuseTokensWithoutBaseUrl({ CONNECTOR_ACCESS_TOKEN: 'sim-access-token' }),
    ).not.toThrow();
    expect(() =>
      refuseTokensWithoutBaseUrl({
        CONNECTOR_BASE_URL: 'https://api.example.com',
        CONNECTOR_CLIENT_TOKEN: 'ct',
        CONNECTOR_ACCESS_TOKEN: 'at',
      }),
    ).not.toThrow();
    expect(() => refuseTokensWithoutBaseUrl({ CONNECTOR_CLIENT_TOKEN: 'ct' })).toThrow(
      'required with CONNECTOR_CLIENT_TOKEN',
    );
  });

  it('gives no such hint when CONNECTOR_BASE_URL is set or the connector answered', () => {
    const set = { CONNECTOR_BASE_URL: 'https://api.example.com' };
    expect(defaultSimulatorHint({ category: 'network' }, set)).toBe('');
    expect(defaultSimulatorHint({ category: 'authorization' }, {})).toBe('');
  });
});
