import type { CliIo } from '../cli/exit-codes.ts';
import { StopSignalReceived } from '../cli/stop-signal.ts';
import { systemClock } from '../clock.ts';
import { limitHeapGrowth } from './heap-growth.ts';
import { type LocalConfig, readLocalConfig, type StartFlags } from './local-config.ts';
import { jsonReporter, type Reporter, terminalReporter } from './reporter.ts';
import { type RunningBridge, startBridge } from './runtime.ts';
import { startBanner, startedFields } from './start-banner.ts';
import { paletteFor } from './terminal.ts';

/**
 * Starts the bridge, prints its banner, and stops it cleanly on `stopSignal`. A signal while it
 * starts (`startUp` aborted) ends the start-up at its next step, what it opened closed, with the
 * same lines as a stop once started and exit 0.
 */
export async function runStart(
  flags: StartFlags,
  io: CliIo,
  stopSignal: Promise<NodeJS.Signals>,
  startUp: AbortSignal,
): Promise<void> {
  const config = readLocalConfig(process.env, flags);
  const output = { write: (line: string) => io.out(line), now: () => systemClock.now() };
  const reporter: Reporter = config.json
    ? jsonReporter(output)
    : terminalReporter(output, paletteFor(process.stdout.isTTY, process.env));
  // A long-running process: its heap stays near twice its live size (see heap-growth.ts).
  limitHeapGrowth();
  // Said when the signal arrives, while starting too: the start-up may take a step to end.
  const stopping = stopSignal.then((signal) =>
    reporter.info(
      `${signal}: stopping (in-flight polls finish first; deliveries not yet made wait for the next start)`,
    ),
  );
  let bridge: RunningBridge;
  try {
    bridge = await startBridge(config, { env: process.env, reporter, stopSignal: startUp });
  } catch (error) {
    if (!(error instanceof StopSignalReceived)) throw error;
    // Ended between two steps of the start-up, what it had opened closed.
    await stopping;
    reporter.info('stopped');
    return;
  }
  // A signal after the start-up's last step: no banner, the bridge stops at once.
  if (!startUp.aborted) printStarted(bridge, config, flags, io, reporter);
  await stopping;
  await bridge.stop();
  reporter.info('stopped');
}

/** The `started` line (`--json`) or the banner: where the admin API, simulator and data are. */
function printStarted(
  bridge: RunningBridge,
  config: LocalConfig,
  flags: StartFlags,
  io: CliIo,
  reporter: Reporter,
): void {
  if (config.json) {
    reporter.info(
      'started',
      startedFields({
        ...bridge,
        connectorUrl: process.env.CONNECTOR_BASE_URL,
        streams: bridge.streams.length,
        entityTypes: bridge.streams.map((stream) => stream.spec.entityType),
        dataDir: config.dataDir,
        pollIntervalMs: config.pollIntervalMs,
      }),
    );
  } else {
    const banner = startBanner({
      ...bridge,
      connectorUrl: process.env.CONNECTOR_BASE_URL,
      localStreams: bridge.streams.length,
      localEntityTypes: bridge.streams.map((stream) => stream.spec.entityType),
      storedConnections: bridge.storedConnections.length,
      storedStreams: bridge.storedConnections.reduce((sum, c) => sum + c.streams, 0),
      pollIntervalMs: config.pollIntervalMs,
      dataDir: config.dataDir,
      demoReceiver: flags.demoReceiver === true,
      allowPrivate: config.allowPrivate,
    });
    for (const line of banner) io.out(line);
  }
}
