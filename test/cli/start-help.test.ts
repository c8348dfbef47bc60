import { describe, expect, it } from 'vitest';
import { runCli } from '../../shared/cli/main.ts';

/** `change-bridge ARGS` in-process: its exit code and what it printed on stdout. */
async function help(args: string[]): Promise<{ code: number; text: string }> {
  const out: string[] = [];
  const code = await runCli(args, { out: (text) => out.push(text), err: () => {} });
  // Commander wraps long descriptions: one line per option is easier to match.
  return { code, text: out.join('').replace(/\n\s{20,}/g, ' ') };
}

describe('change-bridge start --help', () => {
  it('lists every flag of design.md with its default and variable', async () => {
    const { code, text } = await help(['start', '--help']);
    expect(code).toBe(0);
    // design.md, CLI: start [--port 4000] [--data-dir .bridge] [--poll-interval 5s] [--demo-receiver]
    expect(text).toMatch(/--port <port> .*BRIDGE_PORT, default 4000/);
    expect(text).toMatch(/--data-dir <dir> .*BRIDGE_DATA_DIR, default \.bridge/);
    // Before, the only flag whose default the help did not say.
    expect(text).toMatch(/--poll-interval <duration> .*POLL_INTERVAL, default 5s/);
    expect(text).toContain('--demo-receiver');
    expect(text).toContain('--json');
  });
});
