import type { Command } from 'commander';
import type { CliIo } from '../cli/exit-codes.ts';
import { withStopSignal } from '../cli/stop-signal.ts';
import type { StartFlags } from './local-config.ts';

/** Registers `change-bridge start` (design.md, CLI). */
export function registerStartCommand(program: Command, io: CliIo): void {
  program
    .command('start')
    .description(
      'Run the whole bridge in one process: the simulator (unless CONNECTOR_BASE_URL is set), DynamoDB (dynalite), ' +
        'a dispatch queue on disk, pollers, event routing, webhook dispatcher and the admin API. Stops cleanly on SIGINT/SIGTERM.',
    )
    .option('--port <port>', 'admin API port (BRIDGE_PORT, default 4000)')
    .option(
      '--host <address>',
      'interface of the admin API (BRIDGE_HOST, default 127.0.0.1; off loopback BRIDGE_ADMIN_TOKEN is required)',
    )
    .option('--data-dir <dir>', 'where state is kept (BRIDGE_DATA_DIR, default .bridge)')
    .option(
      '--poll-interval <duration>',
      'how often each stream is polled, e.g. 2s or 1m (POLL_INTERVAL, default 5s)',
    )
    .option(
      '--demo-receiver',
      'also run a receiver that verifies signatures and prints each webhook',
    )
    .option('--json', 'log one JSON object per line')
    // Watched from the first moment: a signal while the bridge starts ends its start-up early.
    .action((flags: StartFlags) =>
      withStopSignal(async (stopSignal, startUp) => {
        // Loaded as the command runs, not with the CLI: the runtime's packages (the SDK clients,
        // dynalite, LevelDB, undici, the admin server) are most of the CLI's load, and no other
        // command needs them. A signal meanwhile ends the start-up at its first step.
        const { runStart } = await import('./run-start.ts');
        await runStart(flags, io, stopSignal, startUp);
      }),
    );
}
