import { Command, CommanderError } from 'commander';
import packageJson from '../../package.json' with { type: 'json' };
import { registerCallCommand } from './call-command.ts';
import { type CliIo, EXIT_OK, EXIT_USAGE, exitCodeFor, processIo } from './exit-codes.ts';
import { registerExtraCommands } from './registry.ts';
import { withoutSecretFlagValues } from './secret-flag-text.ts';

/** Builds the `change-bridge` program with every command registered. */
export function buildProgram(io: CliIo, setExit: (code: number) => void): Command {
  const program = new Command('change-bridge')
    .description(
      'Push events from a polling-only hotel Connector API: EventBridge, SQS and signed webhooks.',
    )
    .version(packageJson.version, '-V, --version', 'print the version of change-bridge')
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.out(text),
      writeErr: (text) => io.err(withoutSecretFlagValues(text)),
    });
  registerCallCommand(program, io, setExit);
  registerExtraCommands(program, io, setExit);
  for (const command of program.commands) {
    command.exitOverride();
    checkRequiredOptionsAfterUnknownOnes(command);
  }
  return program;
}

/**
 * Makes `command` and its subcommands name an unknown flag before a required option that is
 * missing: commander checks required options first, so `subscriptions add --ulr URL` said
 * only that `--url` was missing. Same message and exit code (2) for a missing one.
 */
function checkRequiredOptionsAfterUnknownOnes(command: Command): void {
  for (const sub of command.commands) checkRequiredOptionsAfterUnknownOnes(sub);
  const required = command.options.filter((option) => option.mandatory);
  if (required.length === 0) return;
  for (const option of required) option.makeOptionMandatory(false);
  // preAction runs after commander's check of unknown options and missing arguments.
  command.hook('preAction', (self) => {
    const missing = required.find((o) => self.getOptionValue(o.attributeName()) === undefined);
    if (missing) {
      self.error(`error: required option '${missing.flags}' not specified`, {
        code: 'commander.missingMandatoryOptionValue',
      });
    }
  });
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
