import { Command, CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { CliExit } from '../../shared/cli/exit-codes.ts';
import { registerSimulatorCommand } from '../../shared/simulator/cli.ts';

function program(): Command {
  const root = new Command()
    .exitOverride()
    .configureOutput({ writeErr: () => {}, writeOut: () => {} });
  registerSimulatorCommand(root);
  for (const command of root.commands) command.exitOverride();
  return root;
}

async function exitOf(args: string[]): Promise<CommanderError | undefined> {
  try {
    await program().parseAsync(['node', 'change-bridge', 'simulator', ...args]);
    return undefined;
  } catch (error) {
    if (error instanceof CommanderError) return error;
    throw error;
  }
}

describe('simulator --enterprises', () => {
  it('lists --enterprises and --tokens-file in the help', () => {
    const help = program().commands[0]!.helpInformation();
    expect(help).toContain('--enterprises <n>');
    expect(help).toContain('--tokens-file <path>');
  });

  it('refuses zero enterprises with exit code 2 and names the flag', async () => {
    const error = await exitOf(['--enterprises', '0']);
    expect(error?.exitCode).toBe(2);
    expect(error?.message).toContain('--enterprises');
  });

  it('refuses a count that is not a whole number', async () => {
    expect((await exitOf(['--enterprises', '2.5']))?.exitCode).toBe(2);
  });

  it('fails with exit 1 naming --tokens-file when it cannot write it, and leaves nothing running', async () => {
    const run = program().parseAsync([
      'node',
      'change-bridge',
      'simulator',
      '--port',
      '0',
      '--activity',
      '0',
      '--tokens-file',
      '/nonexistent/dir/tokens.json',
    ]);
    // Before, the simulator kept listening and the command waited for a signal.
    const error = await run.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(CliExit);
    expect(error).toMatchObject({ code: 1 });
    expect((error as Error).message).toMatch(
      /^--tokens-file: cannot write \/nonexistent\/dir\/tokens\.json: ENOENT/,
    );
  });
});

describe('simulator numeric flags', () => {
  it('refuses an empty or non-decimal value with exit code 2 naming the flag, where coercion took it', async () => {
    // Before, `--port ''` listened on a random port, `--port 0x1f` on port 31, and an empty
    // --seed, --activity or --faults ran with 0.
    const cases: [string, string][] = [
      ['--port', ''],
      ['--port', ' '],
      ['--port', '0x1f'],
      ['--seed', ''],
      ['--activity', ''],
      ['--activity', 'Infinity'],
      ['--faults', ''],
      ['--faults', '0x1'],
      ['--enterprises', '0b11'],
    ];
    // A value taken starts the simulator, which then fails fast on the unwritable tokens file.
    const base = ['--port', '0', '--activity', '0', '--tokens-file', '/nonexistent/dir/t.json'];
    for (const [flag, value] of cases) {
      const error = await exitOf([...base, flag, value]);
      expect({ flag, value, exitCode: error?.exitCode }).toEqual({ flag, value, exitCode: 2 });
      expect(error?.message).toContain(`configuration is invalid: ${flag}:`);
    }
  });
});
