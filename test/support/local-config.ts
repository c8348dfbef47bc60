import type { LocalConfig } from '../../shared/local/local-config.ts';
import { POLL_LOOP_CONCURRENCY_DEFAULT } from '../../shared/polling/poll-loop-options.ts';
import { RECORDS_IN_FLIGHT_DEFAULT } from '../../shared/polling/record-budget.ts';
import { DispatcherEnvSchema, dispatcherSettings } from '../../shared/webhooks/dispatcher-env.ts';

/** The configuration of an in-process `start` for tests: admin API on a free loopback port, external connector. */
export function testLocalConfig(dataDir: string, pollIntervalMs: number): LocalConfig {
  return {
    port: 0,
    host: '127.0.0.1',
    allowedHosts: [],
    adminToken: undefined,
    dataDir,
    pollIntervalMs,
    pollConcurrency: POLL_LOOP_CONCURRENCY_DEFAULT,
    pollMaxRecordsInFlight: RECORDS_IN_FLIGHT_DEFAULT,
    allowPrivate: true,
    storeThread: false,
    externalConnector: true,
    dispatch: dispatcherSettings(DispatcherEnvSchema.parse({})),
    demoReceiver: false,
    json: true,
  };
}
