import type { Command } from 'commander';
import { registerStartCommand } from '../local/start-command.ts';
import { registerSimulatorCommand } from '../simulator/cli.ts';
import { registerAdminCommands } from './admin/register.ts';
import type { CliIo } from './exit-codes.ts';

/** Registers the commands owned by other capabilities (simulator, local runtime, admin). */
export function registerExtraCommands(
  program: Command,
  io: CliIo,
  _setExit: (code: number) => void,
): void {
  registerStartCommand(program, io);
  registerSimulatorCommand(program);
  registerAdminCommands(program, io);
}
