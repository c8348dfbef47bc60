import { describe, expect, it } from 'vitest';
import { runCli } from '../../shared/cli/main.ts';
import { freePort } from '../support/free-port.ts';

// A port nothing listens on: a request there is refused (ECONNREFUSED), and fetch connects to it.
const UNLISTENED_API = `http://127.0.0.1:${await freePort()}`;

const TOKEN = 'A1b2C3d4-secret-access-token-E5f6';

/** Runs the CLI in-process, with what it writes to stdout and stderr. */
async function run(argv: string[]) {
  let out = '';
  let err = '';
  const code = await runCli(argv, {
    out: (text) => {
      out += text;
    },
    err: (text) => {
      err += text;
    },
    readStdin: async () => '',
  });
  return { code, out, err };
}

describe('a token typed where a flag wants no value or a path', () => {
  it('is refused with exit 2 without being written back (stderr ends up in CI logs)', async () => {
    for (const argv of [
      ['connections', 'add', '--id', 'hotel-1', `--access-token-stdin=${TOKEN}`],
      ['connections', 'add', '--id', 'hotel-1', '--access-token-file', TOKEN],
      ['connections', 'add', '--id', 'hotel-1', `--access-token-file=${TOKEN}`],
    ]) {
      const result = await run([...argv, '--api', UNLISTENED_API]);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.err, argv.join(' ')).toMatch(/--access-token-(stdin|file)/);
      expect(`${result.out}${result.err}`, argv.join(' ')).not.toContain(TOKEN);
    }
  });
});
