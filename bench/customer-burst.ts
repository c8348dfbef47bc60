import { connectorEnvOf } from '../shared/simulator/connector-env.ts';
import { type RunningSimulator, startSimulator } from '../shared/simulator/simulator.ts';
import { type BridgeChild, startBridgeChild } from './bridge-process.ts';
import { type BenchReceiver, startBenchReceiver } from './receiver.ts';

/** `change-bridge start` following a simulator's customers, with one subscriber. */
export interface CustomerBurstBench {
  sim: RunningSimulator;
  receiver: BenchReceiver;
  bridge: BridgeChild;
  /** Ids of up to `count` active customers, to update at once with {@link updateCustomers}. */
  activeCustomerIds(count: number): string[];
  /** Updates each customer's Notes in the simulator, all at the same moment. */
  updateCustomers(ids: readonly string[]): void;
  close(): Promise<void>;
}

/**
 * The setup of the burst benchmarks (webhooks, detection CPU): a medium simulator, a local
 * receiver that verifies every signature, and `change-bridge start` as a child process polling
 * the customers every second; once its first sync is done, a subscription to `events` whose
 * secret the receiver checks.
 */
export async function startCustomerBurstBench(
  events: readonly string[],
): Promise<CustomerBurstBench> {
  const sim = await startSimulator({ seed: 5, size: 'medium', rateLimit: false });
  const receiver = await startBenchReceiver();
  const bridge = await startBridgeChild({
    env: {
      ...connectorEnvOf(sim),
      POLL_ENTITIES: 'customer',
      POLL_HISTORY_START: '400d',
    },
  });
  const close = async () => {
    await bridge.stop();
    await receiver.close();
    await sim.close();
  };
  try {
    await bridge.caughtUp(180_000);
    const created = (await bridge.call('POST', '/subscriptions', {
      url: receiver.url,
      events,
    })) as { secret: string };
    receiver.setSecret(created.secret);
  } catch (error) {
    await close();
    throw error;
  }
  const model = sim.controls.model;
  return {
    sim,
    receiver,
    bridge,
    activeCustomerIds: (count) =>
      [...model.customers.all()]
        .filter((entry) => entry.record.IsActive)
        .slice(0, count)
        .map((entry) => entry.record.Id),
    updateCustomers(ids) {
      for (const id of ids) model.update(model.customers, 'customer', id, { Notes: `bench ${id}` });
    },
    close,
  };
}
