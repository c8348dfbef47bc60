import { Command, CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerSimulatorCommand } from '../../shared/simulator/cli.ts';
import { startSimulator } from '../../shared/simulator/simulator.ts';

async function exitOf(args: string[]): Promise<CommanderError | undefined> {
  const root = new Command()
    .exitOverride()
    .configureOutput({ writeErr: () => {}, writeOut: () => {} });
  registerSimulatorCommand(root);
  for (const command of root.commands) command.exitOverride();
  // A value taken starts the simulator, which then fails fast on the unwritable tokens file.
  const base = ['--port', '0', '--activity', '0', '--tokens-file', '/nonexistent/dir/t.json'];
  try {
    await root.parseAsync(['node', 'change-bridge', 'simulator', ...base, ...args]);
    return undefined;
  } catch (error) {
    if (error instanceof CommanderError) return error;
    return undefined;
  }
}

/**
 * The Portfolio Access Token must differ from every enterprise's AccessToken: an AccessToken is
 * looked up first, so a Portfolio token equal to one acted as that enterprise's token while the
 * simulator printed it as the Portfolio token.
 */
describe('a Portfolio token equal to an enterprise AccessToken', () => {
  it('exits 2 naming --portfolio-token', async () => {
    for (const args of [
      ['--portfolio-token', 'sim-access-token'],
      ['--portfolio-token', 'sim-access-token-2'],
      ['--access-token', 'sim-portfolio-token'],
      ['--access-token', 'a', '--portfolio-token', 'a-3'],
    ]) {
      const error = await exitOf(args);
      expect({ args, exitCode: error?.exitCode }).toEqual({ args, exitCode: 2 });
      expect(error?.message).toContain('configuration is invalid: --portfolio-token:');
    }
  });

  it('is taken when no enterprise has that token', async () => {
    // Enterprise 4 does not exist with the default 3 enterprises: the start goes on (and fails on the file).
    expect(await exitOf(['--portfolio-token', 'sim-access-token-4'])).toBeUndefined();
  });

  it('is refused by startSimulator, naming tokens.portfolioToken', async () => {
    await expect(
      startSimulator({ enterprises: 2, tokens: { portfolioToken: 'sim-access-token-2' } }),
    ).rejects.toThrow(/tokens\.portfolioToken/);
  });
});
