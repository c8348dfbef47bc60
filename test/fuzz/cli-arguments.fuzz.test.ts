import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminServer, startAdminServer } from '../../shared/admin/node-server.ts';
import { runCli } from '../../shared/cli/main.ts';
import { type AdminHarness, createAdminHarness } from '../admin/support/harness.ts';

/** Commands that talk to a running bridge (start, simulator and backfill's wait are left out). */
const COMMANDS = [
  ['subscriptions', 'add'],
  ['subscriptions', 'list'],
  ['subscriptions', 'remove'],
  ['subscriptions', 'rotate-secret'],
  ['events', 'list'],
  ['events', 'show'],
  ['events', 'replay'],
  ['deliveries', 'list'],
  ['streams', 'list'],
  ['streams', 'reset'],
] as const;

const token = fc.oneof(
  fc.constantFrom(
    '--url',
    '--events',
    '--type',
    '--limit',
    '--subscription',
    '--event',
    '--json',
    '--entities',
    '--emit',
    '--unknown-flag',
    'http://127.0.0.1:9/hook',
    'customer.*',
    '-1',
    '0',
    'NaN',
    '1e309',
    '',
    'sub_missing',
    'local/customer',
  ),
  fc.string({ maxLength: 30 }),
);

describe('CLI argument fuzz', () => {
  let harness: AdminHarness;
  let server: AdminServer;

  beforeAll(async () => {
    harness = createAdminHarness();
    server = await startAdminServer({ port: 0, deps: harness.deps });
  });
  afterAll(async () => {
    await server.close();
    await harness.close();
  });

  it('ends every command with exit 0, 1 or 2 and a message, never a crash or a hang', async () => {
    const seen = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...COMMANDS),
        fc.array(token, { maxLength: 6 }),
        async (command, args) => {
          const out: string[] = [];
          const err: string[] = [];
          const io = { out: (t: string) => out.push(t), err: (t: string) => err.push(t) };
          const code = await runCli([...command, ...args, '--api', server.url], io);
          seen.set(code, (seen.get(code) ?? 0) + 1);
          expect([0, 1, 2]).toContain(code);
          if (code !== 0) expect(err.join('').trim().length).toBeGreaterThan(0);
          expect(err.join('')).not.toMatch(/\n\s+at |TypeError|ReferenceError/);
        },
      ),
      { numRuns: 250 },
    );
    expect(seen.get(2)).toBeGreaterThan(0);
    expect(seen.get(0)).toBeGreaterThan(0);
    expect(harness.errors).toEqual([]);
  });
});
