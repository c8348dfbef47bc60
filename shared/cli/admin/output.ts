import type { Command } from 'commander';
import { z } from 'zod';
import { CliExit, type CliIo, EXIT_USAGE } from '../exit-codes.ts';
import { AdminApiClient, adminTokenFrom, resolveApiUrl } from './api-client.ts';

/** Options every admin command takes. */
export const CommonOptionsSchema = z.object({
  api: z.string().optional(),
  json: z.boolean().optional(),
});

/** Parsed common options. */
export type CommonOptions = z.infer<typeof CommonOptionsSchema>;

/**
 * Adds `--api URL` and `--json` to an admin command (`jsonHelp` says what `--json` prints).
 * @example withCommonOptions(group.command('list').description('…'))
 */
export function withCommonOptions(
  command: Command,
  jsonHelp = 'print one JSON document instead of a table',
): Command {
  return command
    .option(
      '--api <url>',
      'admin API of a running `change-bridge start` (default http://127.0.0.1:$BRIDGE_PORT, port 4000)',
    )
    .option('--json', jsonHelp);
}

/**
 * The client for the `--api` option (or BRIDGE_PORT), sending BRIDGE_ADMIN_TOKEN when set;
 * exits 2 when any of them is malformed.
 */
export function clientFor(options: CommonOptions): AdminApiClient {
  const token = adminTokenFrom(process.env);
  return new AdminApiClient(resolveApiUrl(options.api, process.env), {
    ...(token ? { token } : {}),
  });
}

/** Writes one JSON document on stdout. */
export function writeJson(io: CliIo, value: unknown): void {
  io.out(JSON.stringify(value, null, 2));
}

/**
 * A compact table: columns padded to their widest cell, two spaces apart, no trailing blanks.
 * @example formatTable(['ID', 'URL'], [['sub_1', 'https://x']]) // 'ID     URL\nsub_1  https://x'
 */
export function formatTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  return [headers, ...rows]
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** An ISO time as `YYYY-MM-DD HH:MM:SS` (UTC), or `-`. */
export function shortTime(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '-';
  const ms = typeof value === 'number' ? value : Date.parse(value);
  return Number.isFinite(ms) ? new Date(ms).toISOString().slice(0, 19).replace('T', ' ') : '-';
}

/** Seconds as `45s`, `12m`, `3h`, `2d`, or `-`. */
export function shortLag(seconds: number | null): string {
  if (seconds === null) return '-';
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)}m`;
  if (seconds < 172_800) return `${Math.round(seconds / 3600)}h`;
  return `${Math.round(seconds / 86_400)}d`;
}

/**
 * Path segment for an id (stream ids hold `:`); an empty id, `.` or `..` exits 2 naming `field`
 * (the argument or flag that gave it), bridge or no bridge: it would name another route (a URL
 * folds `.` and `..` away, so `events show ..` asked for GET /).
 * @example segment('', '--subscription') // exits 2: "--subscription: must not be empty"
 */
export function segment(id: string, field = 'id'): string {
  if (id.trim() === '') throw new CliExit(EXIT_USAGE, `${field}: must not be empty`);
  if (id === '.' || id === '..') throw new CliExit(EXIT_USAGE, `${field}: must not be . or ..`);
  return encodeURIComponent(id);
}
