import type { ConnectorConfig } from '../connector/connector-config.ts';
import type { StreamDefinition } from '../polling/poll-context.ts';
import {
  type PollSettings,
  type StreamExtras,
  streamDefinitions,
} from '../polling/poll-settings.ts';
import { entitiesWithPortfolioRead } from '../polling/portfolio-entities.ts';
import {
  productTargetsOf,
  type TrackedTargets,
  untrackedEntityTypes,
} from '../polling/tracked-targets.ts';
import type { ConnectionSettings, ConnectionView } from './connection.ts';
import { type ConnectionStore, listAllConnections } from './connection-store.ts';

/**
 * The deployment's poll settings with a connection's own choices over them (entities,
 * interval, initial sync). A portfolio connection leaves out the entity types a Portfolio
 * Access Token cannot read (their every poll would be refused). Pure.
 */
export function settingsOfConnection(
  base: PollSettings,
  connection: ConnectionSettings,
): PollSettings {
  // A connection stored before repeated types were refused is polled once per type.
  const entities = [...new Set(connection.entities ?? base.entities)];
  return {
    ...base,
    entities: connection.portfolioScope ? entitiesWithPortfolioRead(entities) : entities,
    ...(connection.intervalMs !== undefined ? { intervalMs: connection.intervalMs } : {}),
    ...(connection.initialSync ? { initialSync: connection.initialSync } : {}),
  };
}

/**
 * The streams of a stored connection: one per entity type, ids `<connectionId>:<entityType>`,
 * with its products and exports, else those of `extras` (the deployment's POLL_PRODUCT_IDS and
 * POLL_EXPORT_IDS). Pure.
 */
export function streamsOfConnection(
  connection: ConnectionSettings & { id: string },
  base: PollSettings,
  extras: StreamExtras = {},
): StreamDefinition[] {
  return streamDefinitions(connection.id, settingsOfConnection(base, connection), {
    ...extras,
    ...(connection.exportIds ? { exportIds: connection.exportIds } : {}),
    ...(connection.productIds ? { products: productTargetsOf(connection.productIds) } : {}),
  });
}

/**
 * Why a stored connection's export or productPrice stream would poll nothing: its entity type
 * is polled while neither the connection (`--export-ids`, `--product-ids`) nor the deployment
 * (`POLL_EXPORT_IDS`, `POLL_PRODUCT_IDS`, the `tracked` targets) names one. One line each. Pure.
 * @example untrackedConnectionWarnings({ id: 'h1', entities: ['export'] }, settings) // ['connection h1: export is polled, but …']
 */
export function untrackedConnectionWarnings(
  connection: ConnectionSettings & { id: string },
  base: PollSettings,
  tracked: TrackedTargets = {},
): string[] {
  // What streamsOfConnection follows: the connection's own ids, else the deployment's.
  const targets: TrackedTargets = {
    exportIds: connection.exportIds ?? tracked.exportIds,
    products: connection.productIds ? productTargetsOf(connection.productIds) : tracked.products,
  };
  const { entities } = settingsOfConnection(base, connection);
  return untrackedEntityTypes(entities, targets).map((type) =>
    type === 'export'
      ? `connection ${connection.id}: export is polled, but neither the connection (--export-ids) nor POLL_EXPORT_IDS names an export: its export stream polls nothing`
      : `connection ${connection.id}: productPrice is polled, but neither the connection (--product-ids) nor POLL_PRODUCT_IDS names a product: its productPrice stream polls nothing`,
  );
}

/**
 * The connector configuration of a stored connection: the deployment's endpoint, ClientToken
 * and Client name with the connection's AccessToken and Portfolio scope. Pure.
 */
export function connectorConfigOf(
  deployment: Omit<ConnectorConfig, 'accessToken' | 'portfolioScope'>,
  connection: ConnectionSettings,
  accessToken: string,
): ConnectorConfig {
  return {
    ...deployment,
    accessToken,
    ...(connection.portfolioScope ? { portfolioScope: connection.portfolioScope } : {}),
  };
}

/**
 * The view of the connection the CONNECTOR_* variables define (`local`, or `main` in AWS):
 * read-only, polled with the deployment's settings. Pure.
 */
export function environmentConnectionView(
  id: string,
  settings: PollSettings,
  startedAtMs: number,
): ConnectionView {
  return {
    id,
    enabled: true,
    createdAt: new Date(startedAtMs).toISOString(),
    origin: 'environment',
    entities: [...settings.entities],
    ...(settings.intervalMs !== undefined ? { intervalMs: settings.intervalMs } : {}),
    initialSync: settings.initialSync,
  };
}

/**
 * The streams of every enabled connection in `store`, page by page (the admin API's stream
 * list in AWS, where no registry is kept between requests).
 */
export async function enabledConnectionStreams(
  store: ConnectionStore,
  base: PollSettings,
  tracked: TrackedTargets = {},
): Promise<StreamDefinition[]> {
  return (await listAllConnections(store))
    .filter((connection) => connection.enabled)
    .flatMap((connection) => streamsOfConnection(connection, base, tracked));
}
