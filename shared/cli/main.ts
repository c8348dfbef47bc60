import { Command, CommanderError } from 'commander';
import packageJson from '../../package.json' with { type: 'json' };
import { registerCallCommand } from './call-command.ts';
import { type CliIo, EXIT_OK, EXIT_USAGE, exitCodeFor, processIo } from './exit-codes.ts';
import { registerExtraCommands } from './registry.ts';

/** Builds the `change-bridge` program with every command registered. */
export function buildProgram(io: CliIo, setExit: (code: number) => void): Command {
  const program = new Command('change-bridge')
    .description(
      'Push events from a polling-only hotel Connector API: EventBridge, SQS and signed webhooks.',
    )
    .version(packageJson.version, '-V, --version', 'print the version of change-bridge')
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.out(text), writeErr: (text) => io.err(text) });
  registerCallCommand(program, io, setExit);
  registerExtraCommands(program, io, setExit);
  for (const command of program.commands) command.exitOverride();
  return program;
}

/**
 * Runs the CLI with `argv` (without `node` and the script) and resolves to the exit code:
 * 0 success, 1 runtime or remote failure, 2 bad usage or invalid input.
 */
export async function runCli(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  let code = EXIT_OK;
  const program = buildProgram(io, (value) => {
    code = value;
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    }
    io.err(`error: ${error instanceof Error ? error.message : String(error)}`);
    return exitCodeFor(error);
  }
}
