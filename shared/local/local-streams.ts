import { ENTITY_TYPES } from '../changes/entity-types.ts';
import type { Clock } from '../clock.ts';
import { CONFIGURATION } from '../configuration-error.ts';
import { portfolioScopeProblem } from '../connector/connector-config.ts';
import { ValidationError } from '../errors.ts';
import type { StreamDefinition } from '../polling/poll-context.ts';
import {
  type PollSettings,
  pollSettingsFromEnv,
  streamDefinitions,
} from '../polling/poll-settings.ts';
import {
  entitiesWithoutPortfolioRead,
  entitiesWithPortfolioRead,
} from '../polling/portfolio-entities.ts';
import {
  type TrackedTargets,
  trackedTargetsFromEnv,
  untrackedStreamWarnings,
} from '../polling/tracked-targets.ts';
import type { ConnectorSource } from './connector-source.ts';
import type { LocalConfig } from './local-config.ts';
import { LOCAL_CONNECTION_ID } from './local-connection-id.ts';
import type { Reporter } from './reporter.ts';

/** What the `local` connection of a run polls, and the settings it was read from. */
export interface LocalStreamPlan {
  /** The poll settings of the environment (POLL_INTERVAL from the config). */
  settings: PollSettings;
  /** `settings`, with a portfolio connection's entities cut to what its token can read. */
  localSettings: PollSettings;
  /** What POLL_EXPORT_IDS and POLL_PRODUCT_IDS name. */
  tracked: TrackedTargets;
  /** The exports followed: the variable's, else the built-in simulator's. */
  exportIds: TrackedTargets['exportIds'];
  /** The products followed: the variable's, else the built-in simulator's samples. */
  products: TrackedTargets['products'];
  /** The streams of the `local` connection. */
  streams: StreamDefinition[];
}

/**
 * Reads the poll settings and tracked targets of `env` for the `local` connection of `source`,
 * and warns (on `reporter`) of an export or productPrice stream with nothing to follow.
 * @throws ValidationError naming CONNECTOR_PORTFOLIO_SCOPE or POLL_ENTITIES when a Portfolio
 * Access Token cannot read what is asked, or the variable at fault in the poll settings
 */
export function planLocalStreams(
  config: LocalConfig,
  env: Record<string, string | undefined>,
  source: ConnectorSource,
  clock: Clock,
  reporter: Reporter,
): LocalStreamPlan {
  const settings = pollSettingsFromEnv(
    {
      ...env,
      POLL_INTERVAL: `${config.pollIntervalMs}ms`,
      // The built-in simulator's hotel has a year of history, exports and products to follow.
      ...(source.simulator
        ? {
            POLL_HISTORY_START: env.POLL_HISTORY_START ?? '400d',
            POLL_ENTITIES: env.POLL_ENTITIES ?? ENTITY_TYPES.join(','),
          }
        : {}),
    },
    clock.now(),
  );
  const { portfolioScope } = source.connection;
  const scopeProblem = portfolioScopeProblem(portfolioScope, settings.entities);
  if (scopeProblem)
    throw new ValidationError(CONFIGURATION, [
      { path: 'CONNECTOR_PORTFOLIO_SCOPE', message: scopeProblem },
    ]);
  const unreadable = portfolioScope ? entitiesWithoutPortfolioRead(settings.entities) : [];
  if (unreadable.length > 0 && env.POLL_ENTITIES !== undefined)
    throw new ValidationError(CONFIGURATION, [
      {
        path: 'POLL_ENTITIES',
        message: `a Portfolio Access Token (CONNECTOR_PORTFOLIO_SCOPE) cannot read ${unreadable.join(', ')}: leave them out`,
      },
    ]);
  // Left to the defaults, a portfolio connection polls what its token can read.
  const localSettings = portfolioScope
    ? { ...settings, entities: entitiesWithPortfolioRead(settings.entities) }
    : settings;
  // POLL_EXPORT_IDS and POLL_PRODUCT_IDS name what to follow; left unset with the built-in
  // simulator, its exports and sample products are followed.
  const tracked = trackedTargetsFromEnv(env);
  const exportIds = tracked.exportIds ?? source.exportIds;
  const products = tracked.products ?? source.products;
  // An export or productPrice stream with nothing to follow would poll nothing, with no word.
  for (const warning of untrackedStreamWarnings(localSettings.entities, { exportIds, products }))
    reporter.warn(warning);
  const streams = streamDefinitions(LOCAL_CONNECTION_ID, localSettings, {
    scope: source.scope,
    ...(exportIds ? { exportIds } : {}),
    ...(products ? { products } : {}),
  });
  return { settings, localSettings, tracked, exportIds, products, streams };
}
