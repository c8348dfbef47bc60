import type { Command } from 'commander';
import type { CliIo } from '../exit-codes.ts';
import { registerBackfillCommand } from './backfill.ts';
import { registerConnectionCommands } from './connections.ts';
import { registerDeliveryCommands } from './deliveries.ts';
import { registerEventCommands } from './events.ts';
import { registerStreamCommands } from './streams.ts';
import { registerSubscriptionCommands } from './subscriptions.ts';

/**
 * Registers the commands that talk to a running `change-bridge start` through its admin
 * API: subscriptions, events, deliveries, streams, connections and backfill (design.md, CLI). Failures
 * surface as CliExit (1 remote, 2 invalid input), which `runCli` turns into exit codes.
 */
export function registerAdminCommands(program: Command, io: CliIo): void {
  registerSubscriptionCommands(program, io);
  registerEventCommands(program, io);
  registerDeliveryCommands(program, io);
  registerStreamCommands(program, io);
  registerConnectionCommands(program, io);
  registerBackfillCommand(program, io);
}
