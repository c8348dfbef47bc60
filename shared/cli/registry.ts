import type { Command } from 'commander';
import { registerSimulatorCommand } from '../simulator/cli.ts';
import type { CliIo } from './exit-codes.ts';

/** Registers the commands owned by other capabilities (simulator, local runtime, admin). */
export function registerExtraCommands(
  program: Command,
  _io: CliIo,
  _setExit: (code: number) => void,
): void {
  registerSimulatorCommand(program);
}
