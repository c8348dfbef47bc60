import { Command, CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { SIM_MAX_ACTIVITY_PER_SECOND } from '../../shared/simulator/activity.ts';
import { registerSimulatorCommand } from '../../shared/simulator/cli.ts';

async function exitOf(args: string[]): Promise<CommanderError | undefined> {
  const root = new Command()
    .exitOverride()
    .configureOutput({ writeErr: () => {}, writeOut: () => {} });
  registerSimulatorCommand(root);
  for (const command of root.commands) command.exitOverride();
  // A value taken starts the simulator, which then fails fast on the unwritable tokens file.
  const base = ['--port', '0', '--tokens-file', '/nonexistent/dir/t.json'];
  try {
    await root.parseAsync(['node', 'change-bridge', 'simulator', ...base, ...args]);
    return undefined;
  } catch (error) {
    return error instanceof CommanderError ? error : undefined;
  }
}

/**
 * The activity runs on the simulator's one thread: a rate it cannot reach (a few thousand
 * mutations a second here) left it answering no request and taking seconds to minutes to stop
 * on SIGTERM (--activity 1000000: no answer within 5 s, 15 s to stop).
 */
describe('simulator --activity', () => {
  it('refuses a rate above the most it runs, with exit code 2 naming the flag', async () => {
    for (const value of [String(SIM_MAX_ACTIVITY_PER_SECOND + 1), '1000000', '1e9']) {
      const error = await exitOf(['--activity', value]);
      expect({ value, exitCode: error?.exitCode }).toEqual({ value, exitCode: 2 });
      expect(error?.message).toContain('configuration is invalid: --activity:');
    }
  });

  it('takes rates up to the most, and 0 for none', async () => {
    for (const value of ['0', '0.5', String(SIM_MAX_ACTIVITY_PER_SECOND)])
      expect(await exitOf(['--activity', value])).toBeUndefined();
  });
});

describe('simulator flags refused', () => {
  it('say what the flag takes in plain words, not in zod’s', async () => {
    const size = await exitOf(['--size', 'huge']);
    expect(size?.message).toBe(
      'error: configuration is invalid: --size: must be one of small, medium or large',
    );
    const enterprises = await exitOf(['--enterprises', '0']);
    expect(enterprises?.message).toBe(
      'error: configuration is invalid: --enterprises: must be at least 1',
    );
  });
});
