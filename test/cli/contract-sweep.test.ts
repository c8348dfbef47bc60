import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram, runCli } from '../../shared/cli/main.ts';
import { startCliHarness } from '../admin/support/cli.ts';

/** Every command of the registry, as its words (`subscriptions add`), groups included. */
function everyCommand(): { words: string[]; command: Command }[] {
  const found: { words: string[]; command: Command }[] = [];
  const walk = (command: Command, words: string[]) => {
    found.push({ words, command });
    for (const sub of command.commands) walk(sub, [...words, sub.name()]);
  };
  const program = buildProgram({ out: () => {}, err: () => {} }, () => {});
  for (const command of program.commands) walk(command, [command.name()]);
  return found;
}

const COMMANDS = everyCommand();
/**
 * Commands that end in an action (not groups such as `subscriptions`; `backfill` is both an
 * action and the group of `backfill list`).
 */
const LEAVES = COMMANDS.filter(
  ({ command }) =>
    command.commands.length === 0 ||
    (command as unknown as { _actionHandler: unknown })._actionHandler != null,
);
/** Each command that talks to the admin API (`--api`), with valid arguments. */
const ADMIN_RUNS: Record<string, string[]> = {
  'subscriptions add': ['--url', 'http://127.0.0.1:9000/h'],
  'subscriptions list': [],
  'subscriptions remove': ['sub_00000000000000000000000001'],
  'subscriptions enable': ['sub_00000000000000000000000001'],
  'subscriptions disable': ['sub_00000000000000000000000001'],
  'subscriptions rotate-secret': ['sub_00000000000000000000000001'],
  'subscriptions ping': ['sub_00000000000000000000000001'],
  'events list': [],
  'events show': ['evt_00000000000000000000000001'],
  'events replay': ['evt_00000000000000000000000001'],
  'deliveries list': [],
  'deliveries redeliver': ['--subscription', 'sub_00000000000000000000000001'],
  'streams list': [],
  'streams reset': ['main:customer'],
  'connections add': ['--id', 'h1', '--access-token-stdin'],
  'connections list': [],
  'connections show': ['h1'],
  'connections disable': ['h1'],
  'connections enable': ['h1'],
  'connections remove': ['h1'],
  backfill: [],
  'backfill list': [],
  call: ['taxEnvironments/getAll', '--via-bridge'],
};
/** The list commands: `--json` prints one JSON document. */
const LISTS = [
  ['subscriptions', 'list'],
  ['events', 'list'],
  ['deliveries', 'list'],
  ['streams', 'list'],
  ['connections', 'list'],
  ['backfill', 'list'],
];

async function run(argv: readonly string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    readStdin: async () => 'token-1234',
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

describe('the CLI contract (design.md, CLI) for every command of the registry', () => {
  it('runs every command that talks to the admin API below', () => {
    const admin = LEAVES.filter(({ command }) => command.options.some((o) => o.long === '--api'));
    expect(admin.map(({ words }) => words.join(' ')).sort()).toEqual(
      Object.keys(ADMIN_RUNS).sort(),
    );
  });

  it.each(COMMANDS.map(({ words }) => [words.join(' ')]))(
    '%s --help prints its help on stdout and exits 0',
    async (words) => {
      const result = await run([...words.split(' '), '--help']);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`Usage: change-bridge ${words}`);
    },
  );

  it.each(LEAVES.map(({ words }) => [words.join(' ')]))(
    '%s with an unknown flag exits 2 naming the flag',
    async (words) => {
      const result = await run([...words.split(' '), '--no-such-flag']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("unknown option '--no-such-flag'");
      expect(result.stdout).toBe('');
    },
  );

  it.each(
    LEAVES.filter(({ command }) => command.registeredArguments.some((a) => a.required)).map(
      ({ words }) => [words.join(' ')],
    ),
  )('%s without its argument exits 2 naming it', async (words) => {
    const result = await run([...words.split(' ')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/missing required argument '\w+'/);
  });

  describe('against an --api where nothing listens', () => {
    let api: string;
    beforeAll(async () => {
      const probe = createServer();
      await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
      api = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
      await new Promise((resolve) => probe.close(resolve));
    });

    it.each(Object.entries(ADMIN_RUNS))(
      '%s exits 1 saying where it tried, with no stack trace and nothing on stdout',
      async (words, args) => {
        const result = await run([...words.split(' '), ...args, '--api', api]);
        expect(result.code).toBe(1);
        expect(result.stderr).toContain(`cannot reach the admin API at ${api} (ECONNREFUSED)`);
        expect(result.stderr).not.toMatch(/\n\s+at /);
        expect(result.stdout).toBe('');
      },
    );
  });

  describe('list commands with --json', () => {
    let cli: Awaited<ReturnType<typeof startCliHarness>>;
    beforeAll(async () => {
      cli = await startCliHarness();
      // A connection without streams listed: an empty list (one that does not exist exits 1).
      const quiet = ['connections', 'add', '--id', 'quiet', '--access-token-stdin'];
      expect((await cli.run(quiet, { stdin: 'quiet-token' })).code).toBe(0);
    });
    afterAll(async () => {
      await cli?.close();
    });

    it.each(LISTS.map((args) => [args.join(' ')]))(
      '%s --json prints exactly one JSON document, an empty list too',
      async (args) => {
        for (const extra of [[], ['--connection', 'quiet']]) {
          if (extra.length > 0 && args !== 'streams list') continue;
          const result = await run([
            ...args.split(' '),
            ...extra,
            '--json',
            '--api',
            cli.server.url,
          ]);
          expect(result.code).toBe(0);
          expect(() => JSON.parse(result.stdout)).not.toThrow();
          expect(Array.isArray(JSON.parse(result.stdout))).toBe(true);
        }
      },
    );
  });
});
