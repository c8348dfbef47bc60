import type { ConnectorConfig } from '../../../shared/connector/connector-config.ts';
import type { PublishableEvent } from '../../../shared/publish/publishable-event.ts';
import type { RunningSimulator } from '../../../shared/simulator/simulator.ts';
import type { WriteThroughOptions } from '../../../shared/writes/write-through.ts';

/** The connector settings of `sim` for a write-through, with `overrides` (a timeout, …). */
export function simulatorConnector(
  sim: RunningSimulator,
  overrides: Partial<ConnectorConfig> = {},
): ConnectorConfig {
  return {
    baseUrl: sim.url,
    clientToken: sim.tokens.clientToken,
    accessToken: sim.tokens.accessToken,
    client: 'test',
    rateLimit: false,
    ...overrides,
  };
}

/** A publisher that keeps every event it is given in `into` (none, when `into` is omitted). */
export function collectingPublisher(into?: PublishableEvent[]): WriteThroughOptions['publisher'] {
  return {
    publish: async (events) => {
      into?.push(...events);
      return { published: into ? events.length : 0, thinned: 0, failures: [] };
    },
  };
}
