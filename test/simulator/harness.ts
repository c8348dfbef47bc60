import { ManualClock } from '../../shared/clock.ts';
import {
  type ConnectorClient,
  createConnectorClient,
} from '../../shared/connector/connector-client.ts';
import {
  type RunningSimulator,
  type SimulatorOptions,
  startSimulator,
} from '../../shared/simulator/simulator.ts';

/** The simulator's start time in tests: fixed, so every run sees the same dataset. */
export const TEST_START_MS = Date.UTC(2026, 2, 10, 9, 0, 0);

/** A simulator on a ManualClock plus clients for its access and portfolio tokens. */
export interface Harness {
  sim: RunningSimulator;
  clock: ManualClock;
  client: ConnectorClient;
  portfolio: ConnectorClient;
  close(): Promise<void>;
}

const NO_RETRIES = { maxServerRetries: 0, maxRateLimitRetries: 0, baseDelayMs: 1, maxDelayMs: 1 };

/** Starts a small simulator and clients that never retry (so each error surfaces as it is). */
export async function startHarness(options: SimulatorOptions = {}): Promise<Harness> {
  const clock = new ManualClock(TEST_START_MS);
  const sim = await startSimulator({ seed: 42, size: 'small', clock, ...options });
  const base = {
    baseUrl: sim.url,
    clientToken: sim.tokens.clientToken,
    client: 'conformance 1.0',
    rateLimit: false as const,
  };
  const client = createConnectorClient(
    { ...base, accessToken: sim.tokens.accessToken },
    { retryLimits: NO_RETRIES },
  );
  const world = sim.controls.model.world;
  const portfolio = createConnectorClient(
    {
      ...base,
      accessToken: sim.tokens.portfolioToken,
      // The whole chain: its reads cover every enterprise (an enterprise scope narrows them).
      portfolioScope: { chainIds: [world.chainId], enterpriseIds: [] },
    },
    { retryLimits: NO_RETRIES },
  );
  return {
    sim,
    clock,
    client,
    portfolio,
    close: async () => {
      await Promise.all([client.close(), portfolio.close()]);
      await sim.close();
    },
  };
}

/** Posts a raw body to an operation (for requests the strict client refuses to send). */
export async function postRaw(
  sim: RunningSimulator,
  operation: string,
  body: unknown,
): Promise<{ status: number; headers: Headers; text: string }> {
  const response = await fetch(`${sim.url}/api/connector/v1/${operation}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** The envelope with the simulator's default tokens. */
export function envelope(sim: RunningSimulator, accessToken = sim.tokens.accessToken) {
  return {
    ClientToken: sim.tokens.clientToken,
    AccessToken: accessToken,
    Client: 'conformance 1.0',
  };
}

/** An ISO interval [from, to). */
export function interval(fromMs: number, toMs: number) {
  return { StartUtc: new Date(fromMs).toISOString(), EndUtc: new Date(toMs).toISOString() };
}
