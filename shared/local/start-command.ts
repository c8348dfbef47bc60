import type { Command } from 'commander';
import type { CliIo } from '../cli/exit-codes.ts';
import { systemClock } from '../clock.ts';
import { formatProductSample } from '../simulator/product-samples.ts';
import { limitHeapGrowth } from './heap-growth.ts';
import { readLocalConfig, type StartFlags } from './local-config.ts';
import { jsonReporter, type Reporter, terminalReporter } from './reporter.ts';
import { type RunningBridge, startBridge } from './runtime.ts';
import { paletteFor } from './terminal.ts';

function banner(
  bridge: RunningBridge,
  flags: StartFlags,
  pollIntervalMs: number,
  dataDir: string,
): string[] {
  const lines = ['change-bridge is running'];
  if (bridge.simulatorUrl) {
    lines.push(`  simulator      ${bridge.simulatorUrl}  (built-in hotel chain with activity)`);
    for (const [index, sample] of bridge.productSamples.entries()) {
      const label = index === 0 ? 'products       ' : '               ';
      lines.push(`  ${label}${formatProductSample(sample)}`);
    }
  } else lines.push('  connector      CONNECTOR_BASE_URL');
  lines.push(`  admin API      ${bridge.adminUrl}  (${bridge.adminUrl}/openapi.json)`);
  lines.push(`  polling        ${bridge.streams.length} streams every ${pollIntervalMs / 1000}s`);
  lines.push(`  data           ${dataDir}/`);
  if (bridge.demoReceiverUrl)
    lines.push(
      `  demo receiver  ${bridge.demoReceiverUrl}  (verifies signatures with standardwebhooks)`,
    );
  if (!flags.demoReceiver) {
    lines.push(
      '',
      'Send webhooks to your endpoint:',
      `  npx change-bridge subscriptions add --url http://127.0.0.1:9000/hook`,
    );
  }
  lines.push('', 'Events:');
  return lines;
}

/** Resolves on the first SIGINT or SIGTERM. */
function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

/** Registers `change-bridge start` (design.md, CLI). */
export function registerStartCommand(program: Command, io: CliIo): void {
  program
    .command('start')
    .description(
      'Run the whole bridge in one process: the simulator (unless CONNECTOR_BASE_URL is set), DynamoDB (dynalite), ' +
        'SQS (emulator), pollers, event routing, webhook dispatcher and the admin API. Stops cleanly on SIGINT/SIGTERM.',
    )
    .option('--port <port>', 'admin API port (BRIDGE_PORT, default 4000)')
    .option(
      '--host <address>',
      'interface of the admin API (BRIDGE_HOST, default 127.0.0.1; off loopback BRIDGE_ADMIN_TOKEN is required)',
    )
    .option('--data-dir <dir>', 'where state is kept (BRIDGE_DATA_DIR, default .bridge)')
    .option(
      '--poll-interval <duration>',
      'how often each stream is polled, e.g. 5s (POLL_INTERVAL)',
    )
    .option(
      '--demo-receiver',
      'also run a receiver that verifies signatures and prints each webhook',
    )
    .option('--json', 'log one JSON object per line')
    .action(async (flags: StartFlags) => {
      const config = readLocalConfig(process.env, flags);
      const output = { write: (line: string) => io.out(line), now: () => systemClock.now() };
      const reporter: Reporter = config.json
        ? jsonReporter(output)
        : terminalReporter(output, paletteFor(process.stdout.isTTY, process.env));
      // A long-running process: its heap stays near twice its live size (see heap-growth.ts).
      limitHeapGrowth();
      const bridge = await startBridge(config, { env: process.env, reporter });
      if (config.json) {
        reporter.info('started', {
          simulator: bridge.simulatorUrl,
          admin: bridge.adminUrl,
          dataDir: config.dataDir,
          streams: bridge.streams.length,
          pollIntervalMs: config.pollIntervalMs,
          demoReceiver: bridge.demoReceiverUrl,
          products: bridge.productSamples,
          requeuedDeliveries: bridge.requeuedDeliveries,
        });
      } else {
        for (const line of banner(bridge, flags, config.pollIntervalMs, config.dataDir))
          io.out(line);
      }
      const signal = await untilSignal();
      reporter.info(`${signal}: stopping (in-flight polls and deliveries finish first)`);
      await bridge.stop();
      reporter.info('stopped');
    });
}
