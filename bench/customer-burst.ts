import { createInterface } from 'node:readline';
import type { z } from 'zod';
import { type Child, startChild, stopChild } from './backfill/child.ts';
import { type BridgeChild, startBridgeChild } from './bridge-process.ts';
import {
  BurstAnswerSchema,
  type BurstRequestSchema,
  BurstSimulatorReadySchema,
} from './burst/simulator.ts';
import { type BenchReceiver, startBenchReceiver } from './receiver.ts';

/** `change-bridge start` following a simulator's customers, with one subscriber. */
export interface CustomerBurstBench {
  receiver: BenchReceiver;
  bridge: BridgeChild;
  /** The simulator's process (it stands in for the remote connector, on this machine's cores). */
  simulatorPid: number;
  /** Updates the Notes of `count` active customers in the simulator, all at the same moment; their ids. */
  updateCustomers(count: number): Promise<string[]>;
  close(): Promise<void>;
}

/** Sends one request to the burst simulator and reads its answer line. */
function askSimulator(
  simulator: Child,
): (request: z.infer<typeof BurstRequestSchema>) => Promise<string> {
  const lines = createInterface({ input: simulator.process.stdout! });
  const waiting: Array<(line: string) => void> = [];
  lines.on('line', (line) => waiting.shift()?.(line));
  return (request) =>
    new Promise((resolve) => {
      waiting.push(resolve);
      simulator.process.stdin!.write(`${JSON.stringify(request)}\n`);
    });
}

/**
 * The setup of the burst benchmarks (webhooks, detection CPU): a medium simulator in a process
 * of its own (bench/burst/simulator.ts: a connector is remote, and its page serialising must
 * not hold up the receiver), a local receiver that verifies every signature, and
 * `change-bridge start` as a child process polling the customers every second; once its first
 * sync is done, a subscription to `events` whose secret the receiver checks.
 */
export async function startCustomerBurstBench(
  events: readonly string[],
): Promise<CustomerBurstBench> {
  const simulator = startChild('burst/simulator.ts', {});
  const ready = BurstSimulatorReadySchema.parse(JSON.parse(await simulator.firstLine));
  const ask = askSimulator(simulator);
  const receiver = await startBenchReceiver();
  const bridge = await startBridgeChild({
    env: {
      ...ready.connectorEnv,
      POLL_ENTITIES: 'customer',
      POLL_HISTORY_START: '400d',
    },
  });
  const close = async () => {
    await bridge.stop();
    await receiver.close();
    await stopChild(simulator);
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
  return {
    receiver,
    bridge,
    simulatorPid: simulator.process.pid!,
    updateCustomers: async (count) =>
      BurstAnswerSchema.parse(JSON.parse(await ask({ update: count }))).updated,
    close,
  };
}
