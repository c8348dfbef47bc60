import { describe, expect, it } from 'vitest';
import { runCli } from '../../shared/cli/main.ts';
import { freePort } from '../support/free-port.ts';

// A port nothing listens on: a request there is refused (ECONNREFUSED), and fetch connects to it.
const UNLISTENED_API = `http://127.0.0.1:${await freePort()}`;

/** Runs the CLI, counting the reads of stdin (at a terminal each one asks for the token). */
async function run(argv: readonly string[]) {
  const err: string[] = [];
  let stdinReads = 0;
  const code = await runCli(argv, {
    out: () => {},
    err: (text) => err.push(text),
    readStdin: async () => {
      stdinReads += 1;
      return 'hotel-token-1';
    },
  });
  return { code, stderr: err.join('\n'), stdinReads };
}

describe('change-bridge connections add with invalid input', () => {
  it.each([
    [['--id', 'no spaces'], '--id: must be 1 to 64 letters'],
    [['--id', 'h1', '--entities', 'customer,guest'], '--entities: guest: must be one of'],
    [['--id', 'h1', '--interval', 'soon'], '--interval: is not a duration'],
    [['--id', 'h1', '--initial-sync', 'bogus'], '--initial-sync: must be baseline or emit'],
    [['--id', 'h1', '--portfolio-scope', 'x:1'], '--portfolio-scope: x:1: needs the chain:<uuid>'],
    [['--id', 'h1', '--api', 'ftp://bridge'], 'configuration is invalid: --api: '],
  ])('%j exits 2 naming the field before the token is asked for', async (args, message) => {
    const result = await run([
      'connections',
      'add',
      '--access-token-stdin',
      ...args,
      ...(args.includes('--api') ? [] : ['--api', UNLISTENED_API]),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    // Before, the token was read first: pasted at a terminal, then refused for a typo.
    expect(result.stdinReads).toBe(0);
  });
});
