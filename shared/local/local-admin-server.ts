import type { AdminDeps } from '../admin/admin-deps.ts';
import { BackfillEstimates } from '../admin/backfill-estimates.ts';
import { BackfillSourcesCache } from '../admin/backfill-sources-cache.ts';
import { type AdminServer, startAdminServer } from '../admin/node-server.ts';
import { toBudgetView } from '../admin/streams-view.ts';
import { describeThrown } from '../errors.ts';
import type { PollLoop } from '../polling/poll-loop-options.ts';
import type { WriteThrough } from '../writes/write-through.ts';
import type { LocalConfig } from './local-config.ts';
import type { LocalConnections } from './local-connections.ts';
import type { Reporter } from './reporter.ts';

/** What the admin API of a local run serves. */
export interface LocalAdminServerOptions
  extends Pick<
    AdminDeps,
    'webhooks' | 'state' | 'windows' | 'deliveryCounter' | 'backfills' | 'clock' | 'random'
  > {
  config: LocalConfig;
  reporter: Reporter;
  writeThrough: WriteThrough;
  connections: LocalConnections;
  pollLoop: PollLoop;
}

/**
 * Starts the admin HTTP API of a local run on the configured host and port, its streams and
 * budgets read per request from the connections polled now.
 */
export function startLocalAdminServer(options: LocalAdminServerOptions): Promise<AdminServer> {
  const { config, reporter, connections, pollLoop } = options;
  return startAdminServer({
    port: config.port,
    host: config.host,
    token: config.adminToken,
    allowedHosts: config.allowedHosts,
    log: (line) => reporter.info(line),
    deps: {
      webhooks: options.webhooks,
      writeThrough: options.writeThrough,
      state: options.state,
      // Read per request: connections added or disabled at run time change the streams.
      streams: async () => connections.registry.definitions(),
      connections: connections.admin,
      windows: options.windows,
      deliveryCounter: options.deliveryCounter,
      backfills: options.backfills,
      backfillSources: new BackfillSourcesCache(),
      backfillEstimates: new BackfillEstimates(),
      clock: options.clock,
      random: options.random,
      // A stream held back by the poll loop (a full disk) shows when it is polled next.
      heldStreams: () => pollLoop.held(),
      budgets: () =>
        connections.registry.connections().flatMap((connection) => {
          const view = connection.client.budgetView();
          return view ? [toBudgetView(connection.id, view)] : [];
        }),
      onError: (error, request) =>
        reporter.info(`admin ${request.method} ${request.path} failed: ${describeThrown(error)}`),
    },
  });
}
