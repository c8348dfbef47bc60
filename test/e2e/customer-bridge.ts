import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
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

/**
 * A {@link customerBridge} for the tests of the calling `describe`: set up before them
 * (`beforeAll`) and closed after them (`afterAll`). Its parts are read from the tests (and the
 * functions they call), once it is set up.
 * @example const fixture = useCustomerBridge({ seed: 17, dataDirPrefix: 'bridge-crash-order-', pollInterval: '500ms' });
 */
export function useCustomerBridge(options: Parameters<typeof customerBridge>[0]): CustomerBridge {
  let fixture: CustomerBridge | undefined;
  beforeAll(async () => {
    fixture = await customerBridge(options);
  });
  afterAll(async () => {
    await fixture?.close();
  });
  const setUp = (): CustomerBridge => {
    if (fixture === undefined) throw new Error('the customer bridge is set up in beforeAll');
    return fixture;
  };
  return {
    get sim() {
      return setUp().sim;
    },
    get receiver() {
      return setUp().receiver;
    },
    get dataDir() {
      return setUp().dataDir;
    },
    get bridge() {
      return setUp().bridge;
    },
    close: () => setUp().close(),
  };
}
