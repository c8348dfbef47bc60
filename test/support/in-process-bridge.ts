import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LocalConfig } from '../../shared/local/local-config.ts';
import { jsonReporter } from '../../shared/local/reporter.ts';
import { type RunningBridge, startBridge } from '../../shared/local/runtime.ts';
import { connectorEnvOf } from '../../shared/simulator/connector-env.ts';
import type { RunningSimulator } from '../../shared/simulator/simulator.ts';
import type { TestReceiver } from '../e2e/webhook-receiver.ts';
import { testLocalConfig } from './local-config.ts';

/** An event as the bridge published it: its type and subject. */
export interface PublishedEvent {
  type: string;
  subject: string | undefined;
}

/** A bridge started by {@link startInProcessBridge}. */
export interface InProcessBridge {
  bridge: RunningBridge;
  /** The events the bridge has published, in order, as its runtime reports each one. */
  published: readonly PublishedEvent[];
  /** Subscribes `receiver` to every event and gives it the signing secret. */
  subscribe(receiver: TestReceiver): Promise<void>;
  /** Stops the bridge and removes its data directory. */
  close(): Promise<void>;
}

/**
 * `change-bridge start`'s runtime in this process (dynalite in a temporary data dir, the SQS
 * emulator, pollers, dispatcher, admin API on a free port) polling `sim`, quiet, loopback
 * receivers allowed. `env` adds variables such as POLL_ENTITIES; `config` overrides the
 * configuration `start` would read (the dispatcher's settings, …).
 * @example const { bridge, subscribe, close } = await startInProcessBridge(sim, { POLL_ENTITIES: 'customer' })
 */
export async function startInProcessBridge(
  sim: RunningSimulator,
  env: Record<string, string> = {},
  pollIntervalMs = 500,
  config: Partial<LocalConfig> = {},
): Promise<InProcessBridge> {
  const dataDir = await mkdtemp(join(tmpdir(), 'cb-bridge-'));
  const published: PublishedEvent[] = [];
  const quiet = jsonReporter({ write: () => undefined, now: () => Date.now() });
  const bridge = await startBridge(
    { ...testLocalConfig(dataDir, pollIntervalMs), ...config },
    {
      env: {
        ...connectorEnvOf(sim),
        ...env,
      },
      reporter: {
        ...quiet,
        events: (events) => {
          for (const { type, subject } of events) published.push({ type, subject });
          quiet.events(events);
        },
      },
    },
  ).catch(async (error: unknown) => {
    // A start refused (a test of its validation) leaves no data dir behind in the temp dir.
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  });
  return {
    bridge,
    published,
    async subscribe(receiver) {
      const added = await fetch(`${bridge.adminUrl}/subscriptions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url: receiver.url }),
      });
      receiver.setSecret(((await added.json()) as { secret: string }).secret);
    },
    async close() {
      await bridge.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
