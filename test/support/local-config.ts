import type { LocalConfig } from '../../shared/local/local-config.ts';

/** The configuration of an in-process `start` for tests: admin API on a free loopback port, external connector. */
export function testLocalConfig(dataDir: string, pollIntervalMs: number): LocalConfig {
  return {
    port: 0,
    host: '127.0.0.1',
    allowedHosts: [],
    adminToken: undefined,
    dataDir,
    pollIntervalMs,
    allowPrivate: true,
    externalConnector: true,
    demoReceiver: false,
    json: true,
  };
}
