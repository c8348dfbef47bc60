import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { z } from 'zod';
import { StreamListSchema, type StreamViewSchema } from '../../shared/admin/schemas.ts';
import { connectorEnvOf } from '../../shared/simulator/connector-env.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { type BridgeProcess, bridgeProcess } from '../chaos/bridge-process.ts';
import type { AdminCall } from '../support/admin-call.ts';
import { freePort } from '../support/free-port.ts';
import { startTestReceiver, type TestReceiver } from './webhook-receiver.ts';

/** The stream a customer bridge polls. */
export const CUSTOMER_STREAM_ID = 'local:customer';

/**
 * Reads the customer stream as the admin API lists it: undefined while the API does not answer
 * (a bridge starting or restarting) or lists no such stream.
 * @example const customerStream = customerStreamOf(adminCaller(() => bridge.api));
 */
export function customerStreamOf(
  call: AdminCall,
): () => Promise<z.infer<typeof StreamViewSchema> | undefined> {
  return async () => {
    const listing = await call('GET', '/streams').catch(() => undefined);
    return StreamListSchema.safeParse(listing).data?.streams.find(
      (s) => s.id === CUSTOMER_STREAM_ID,
    );
  };
}

/** A `change-bridge start` child polling customers only, with its simulator and receiver. */
export interface CustomerBridge {
  sim: RunningSimulator;
  receiver: TestReceiver;
  dataDir: string;
  /** Not started: the test starts (and kills) it. */
  bridge: BridgeProcess;
  /** Kills the bridge, closes the receiver and the simulator, removes the data dir. */
  close(): Promise<void>;
}

/**
 * A small unthrottled simulator (seeded), a receiver, a fresh data dir (`dataDirPrefix`) and a
 * bridge child polling its customers since 400 days back every `pollInterval`; `env` adds to
 * (or overrides) the bridge's environment.
 * @example const fixture = await customerBridge({ seed: 21, dataDirPrefix: 'bridge-crash-sync-', pollInterval: '1s' });
 */
export async function customerBridge(options: {
  seed: number;
  dataDirPrefix: string;
  pollInterval: string;
  env?: Record<string, string>;
}): Promise<CustomerBridge> {
  const sim = await startSimulator({ seed: options.seed, size: 'small', rateLimit: false });
  const receiver = await startTestReceiver();
  const dataDir = await mkdtemp(join(tmpdir(), options.dataDirPrefix));
  const bridge = bridgeProcess({
    port: await freePort(),
    dataDir,
    pollInterval: options.pollInterval,
    env: {
      ...connectorEnvOf(sim),
      POLL_ENTITIES: 'customer',
      POLL_HISTORY_START: '400d',
      ...options.env,
    },
  });
  return {
    sim,
    receiver,
    dataDir,
    bridge,
    async close() {
      await bridge.kill();
      await receiver.close();
      await sim.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
