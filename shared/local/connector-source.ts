import type { Scope } from '../changes/entity-types.ts';
import { systemClock } from '../clock.ts';
import {
  type ConnectorConfig,
  connectorConfigFromEnv,
  DEFAULT_CLIENT_NAME,
} from '../connector/connector-config.ts';
import { BridgeError } from '../errors.ts';
import type { ProductTarget } from '../polling/poll-context.ts';
import type { DatasetSize } from '../simulator/generate.ts';
import { type ProductSample, productSamples } from '../simulator/product-samples.ts';
import type { RunningSimulator } from '../simulator/simulator.ts';

const SIZES: readonly DatasetSize[] = ['small', 'medium', 'large'];

/** `SIMULATOR_SIZE`: the built-in simulator's dataset (small: 300 customers, medium: ~10,000, large: 100,000). */
export function simulatorSizeFromEnv(value: string | undefined): DatasetSize {
  const size = (value ?? 'small') as DatasetSize;
  if (!SIZES.includes(size))
    throw new BridgeError(`SIMULATOR_SIZE must be one of ${SIZES.join(', ')}, not ${value}`);
  return size;
}

/** The connector a local run polls, and what its streams need to know about it. */
export interface ConnectorSource {
  connection: ConnectorConfig;
  /** The built-in simulator, when no CONNECTOR_BASE_URL was given. */
  simulator?: RunningSimulator;
  scope: Scope;
  exportIds?: readonly string[];
  products?: readonly ProductTarget[];
  /** With the simulator: the priced products with their names and time units (for the banner). */
  productSamples?: readonly ProductSample[];
  close(): Promise<void>;
}

/**
 * The built-in simulator with background activity (a seeded hotel chain), or the endpoint
 * named by the CONNECTOR_* variables.
 */
export async function openConnectorSource(
  env: Record<string, string | undefined>,
  activityPerSecond: number,
): Promise<ConnectorSource> {
  if (env.CONNECTOR_BASE_URL) {
    const connection = connectorConfigFromEnv(env);
    return { connection, scope: {}, close: async () => undefined };
  }
  // SIMULATOR_RATE_LIMIT=off lifts the connector's 200 requests / 30 s budget (benchmarks), on
  // the server and in the client alike: the client's own budget would otherwise keep to it.
  const unlimited = env.SIMULATOR_RATE_LIMIT === 'off' ? { rateLimit: false as const } : {};
  // Loaded only when it runs: a bridge polling a real connector carries none of it.
  const { startSimulator } = await import('../simulator/simulator.ts');
  const simulator = await startSimulator({
    seed: 1,
    size: simulatorSizeFromEnv(env.SIMULATOR_SIZE),
    ...unlimited,
    activity: { perSecond: activityPerSecond },
    clock: systemClock,
  });
  const world = simulator.controls.model.world;
  const samples = productSamples(world, 3);
  return {
    simulator,
    connection: {
      baseUrl: simulator.url,
      clientToken: simulator.tokens.clientToken,
      // The plain token (one hotel of the chain): every operation accepts it, while a Portfolio
      // Access Token is refused by resourceCategoryImageAssignments and taxEnvironments.
      accessToken: simulator.tokens.accessToken,
      client: DEFAULT_CLIENT_NAME,
      ...unlimited,
    },
    scope: { chainId: world.chainId },
    exportIds: [...simulator.controls.model.exports.all()].map((entry) => entry.record.Id),
    products: samples.map(({ productId, timeZone }) => ({ productId, timeZone })),
    productSamples: samples,
    close: () => simulator.close(),
  };
}
