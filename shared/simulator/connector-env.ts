import type { SimTokens } from './api.ts';

/** The variables that point a bridge at a connector (design.md, Configuration). */
export interface ConnectorEnv {
  CONNECTOR_BASE_URL: string;
  CONNECTOR_CLIENT_TOKEN: string;
  CONNECTOR_ACCESS_TOKEN: string;
}

/**
 * The CONNECTOR_* variables of a running simulator: its URL, ClientToken and the first
 * enterprise's AccessToken. For starting `change-bridge start` (or its runtime) against it.
 * @example startBridgeChild({ env: { ...connectorEnvOf(sim), POLL_ENTITIES: 'customer' } })
 */
export function connectorEnvOf(sim: { url: string; tokens: SimTokens }): ConnectorEnv {
  return {
    CONNECTOR_BASE_URL: sim.url,
    CONNECTOR_CLIENT_TOKEN: sim.tokens.clientToken,
    CONNECTOR_ACCESS_TOKEN: sim.tokens.accessToken,
  };
}
