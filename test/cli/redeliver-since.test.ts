import { describe, expect, it } from 'vitest';
import { sinceInstant } from '../../shared/cli/admin/deliveries.ts';
import { runCli } from '../../shared/cli/main.ts';
import { freePort } from '../support/free-port.ts';

// A port nothing listens on: a request there is refused (ECONNREFUSED), and fetch connects to it.
const UNLISTENED_API = `http://127.0.0.1:${await freePort()}`;

const NOW = Date.UTC(2026, 0, 1, 12);

async function redeliverSince(since: string) {
  const err: string[] = [];
  const code = await runCli(
    // Nothing listens at UNLISTENED_API: a --since that is taken ends in exit 1.
    [
      'deliveries',
      'redeliver',
      '--subscription',
      'sub_00000000000000000000000001',
      '--since',
      since,
      '--api',
      UNLISTENED_API,
    ],
    { out: () => {}, err: (text) => err.push(text) },
  );
  return { code, stderr: err.join('\n') };
}

describe('deliveries redeliver --since', () => {
  it('takes a duration back or an ISO date-time', () => {
    expect(sinceInstant('2h', NOW)).toBe('2026-01-01T10:00:00.000Z');
    expect(sinceInstant('2025-12-31T00:00:00Z', NOW)).toBe('2025-12-31T00:00:00Z');
    expect(sinceInstant(undefined, NOW)).toBe('1970-01-01T00:00:00.000Z');
  });

  it('reads a duration reaching back past 1970 as every dead letter, not a crash', async () => {
    expect(sinceInstant('999999999d', NOW)).toBe('1970-01-01T00:00:00.000Z');
    // Before: exit 1 with "Invalid time value".
    const result = await redeliverSince('999999999d');
    expect(result.stderr).not.toContain('Invalid time value');
    expect(result.stderr).toContain('cannot reach the admin API');
  });

  it.each(['2026', '90', '0'])(
    'refuses the bare number %s (exit 2 naming --since): it would be milliseconds',
    async (since) => {
      // Before, "2026" (a year?) was 2026 ms back: next to no dead letter, silently.
      const result = await redeliverSince(since);
      expect(result.code).toBe(2);
      // Input to the admin API (which dead letters go again), refused as input: no
      // `configuration is invalid: ` lead, which flags configuring the command take.
      expect(result.stderr.split('\n')[0]).toBe(
        `error: --since: "${since}" is neither a duration with its unit, such as 2h, nor an ISO 8601 date-time`,
      );
    },
  );
});
