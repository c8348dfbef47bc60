import { z } from 'zod';
import type { Scope } from '../changes/entity-types.ts';
import { type RandomSource, systemClock } from '../clock.ts';
import { CONFIGURATION } from '../configuration-error.ts';
import {
  type ConnectorConfig,
  ConnectorRateLimitSchema,
  connectorConfigFromEnv,
  DEFAULT_CLIENT_NAME,
} from '../connector/connector-config.ts';
import { parseEnvironment, withValueLength } from '../env-issues.ts';
import { ValidationError } from '../errors.ts';
import type { ProductTarget } from '../polling/poll-context.ts';
import type { DatasetSize } from '../simulator/generate.ts';
import { type ProductSample, productSamples } from '../simulator/product-samples.ts';
import type { RunningSimulator } from '../simulator/simulator.ts';

const SIZES: readonly DatasetSize[] = ['small', 'medium', 'large'];

/** `SIMULATOR_SIZE`: the built-in simulator's dataset (small: 300 customers, medium: ~10,000, large: 100,000). */
export function simulatorSizeFromEnv(value: string | undefined): DatasetSize {
  const size = (value ?? 'small') as DatasetSize;
  if (!SIZES.includes(size))
    throw new ValidationError(CONFIGURATION, [
      {
        path: 'SIMULATOR_SIZE',
        message: withValueLength(`must be one of ${SIZES.join(', ')}`, value),
      },
    ]);
  return size;
}

/** The CONNECTOR_* variables checked on the built-in simulator as with a connector of one's own. */
const SimulatorRunEnvSchema = z.object({
  CONNECTOR_RATE_LIMIT: ConnectorRateLimitSchema,
  // The Client field of every request (README, Configuration): the simulator's requests too.
  CONNECTOR_CLIENT: z.string().min(1).default(DEFAULT_CLIENT_NAME),
});

/** Variables that name a connection of one's own: without CONNECTOR_BASE_URL they would go unused. */
const OWN_CONNECTION_VARIABLES = [
  'CONNECTOR_ACCESS_TOKEN',
  'CONNECTOR_CLIENT_TOKEN',
  'CONNECTOR_PORTFOLIO_SCOPE',
] as const;

/**
 * Checks what a run on the built-in simulator (no CONNECTOR_BASE_URL) reads: SIMULATOR_SIZE,
 * SIMULATOR_RATE_LIMIT (`on` or `off`), CONNECTOR_CLIENT, and that no variable of a connection
 * of one's own is set, since the simulator would be polled in its stead with no word said. CONNECTOR_RATE_LIMIT,
 * unread here, must still be valid: a value refused with CONNECTOR_BASE_URL is refused without.
 * @throws ValidationError naming the variable, not showing its value.
 */
export function checkSimulatorEnv(env: Record<string, string | undefined>): void {
  simulatorSizeFromEnv(env.SIMULATOR_SIZE);
  parseEnvironment(SimulatorRunEnvSchema, env);
  const rateLimit = env.SIMULATOR_RATE_LIMIT;
  if (rateLimit !== undefined && rateLimit !== 'on' && rateLimit !== 'off')
    throw new ValidationError(CONFIGURATION, [
      { path: 'SIMULATOR_RATE_LIMIT', message: withValueLength('must be on or off', rateLimit) },
    ]);
  const orphan = OWN_CONNECTION_VARIABLES.find((name) => env[name]);
  if (orphan)
    throw new ValidationError(CONFIGURATION, [
      {
        path: 'CONNECTOR_BASE_URL',
        message: `required with ${orphan}: without it start polls its built-in simulator (unset ${orphan} for that)`,
      },
    ]);
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

/** Where and how {@link openConnectorSource} runs the built-in simulator. */
export interface BuiltInSimulatorOptions {
  /** Background mutations per second. */
  activityPerSecond: number;
  /** The bridge's data dir, locked by this process: it keeps the simulator's seed anchor. */
  dataDir: string;
  /** Draws the activity's seed, a new one each run. */
  random: RandomSource;
}

/**
 * The built-in simulator with background activity (a seeded hotel chain), or the endpoint
 * named by the CONNECTOR_* variables. The simulator is seeded at the data dir's seed anchor,
 * so a restart serves the same seeded records (same ids, times and content) as the run before.
 * @throws BridgeError when the seed anchor cannot be read or written; ValidationError when SIMULATOR_SIZE is bad.
 */
export async function openConnectorSource(
  env: Record<string, string | undefined>,
  options: BuiltInSimulatorOptions,
): Promise<ConnectorSource> {
  if (env.CONNECTOR_BASE_URL) {
    const connection = connectorConfigFromEnv(env);
    return { connection, scope: {}, close: async () => undefined };
  }
  // SIMULATOR_RATE_LIMIT=off lifts the connector's 200 requests / 30 s budget (benchmarks), on
  // the server and in the client alike: the client's own budget would otherwise keep to it.
  const unlimited = env.SIMULATOR_RATE_LIMIT === 'off' ? { rateLimit: false as const } : {};
  const { CONNECTOR_CLIENT } = parseEnvironment(SimulatorRunEnvSchema, env);
  // Loaded only when it runs: a bridge polling a real connector carries none of it.
  const { startSimulator } = await import('../simulator/simulator.ts');
  const { readOrCreateSeedAnchor } = await import('../simulator/seed-anchor.ts');
  // The simulator keeps its records in memory and re-seeds at every start. Seeded at the data
  // dir's anchor, its seeded records come back exactly as the last run served them, so the
  // bridge sees no change in them. What the last run's activity did is not kept: records it
  // created are gone, and records it updated or deleted are back to their seeded state. Most
  // of that goes unreported (the seeded UpdatedUtc is older than the bridge's watermarks), but
  // a price the activity changed reverts as a productPrice update (prices are read afresh),
  // and a sweep reports a vanished payment request, reservation group or product category
  // as deleted, and one the activity changed, back in its seeded state, as updated.
  const { seededAtMs } = await readOrCreateSeedAnchor(options.dataDir, systemClock);
  const simulator = await startSimulator({
    seed: 1,
    size: simulatorSizeFromEnv(env.SIMULATOR_SIZE),
    ...unlimited,
    activity: { perSecond: options.activityPerSecond },
    clock: systemClock,
    seededAtMs,
    // A new activity stream each run: replaying the last run's would create records again under
    // the ids that run's activity gave its own, at other times (phantom updates of CreatedUtc).
    activitySeed: Math.floor(options.random() * 0x1_0000_0000),
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
      client: CONNECTOR_CLIENT,
      ...unlimited,
    },
    scope: { chainId: world.chainId },
    exportIds: [...simulator.controls.model.exports.all()].map((entry) => entry.record.Id),
    products: samples.map(({ productId, timeZone }) => ({ productId, timeZone })),
    productSamples: samples,
    close: () => simulator.close(),
  };
}
