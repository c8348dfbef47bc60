import { isIP } from 'node:net';
import { z } from 'zod';
import { HEADER_UNSAFE_TOKEN_MESSAGE, isHeaderSafeToken } from '../admin/admin-token.ts';
import { isLoopbackHost } from '../admin/request-guard.ts';
import { commaItems } from '../comma-list.ts';
import { CONFIGURATION } from '../configuration-error.ts';
import { ConnectorBaseUrlSchema, connectorConfigFromEnv } from '../connector/connector-config.ts';
import { DurationSchema } from '../duration.ts';
import { isPortDigits, variableOf, withValueLength } from '../env-issues.ts';
import { formatIssuePath, ValidationError } from '../errors.ts';
import { ADMIN_API_UNREACHABLE, withoutFetchBlockedPorts } from '../fetch-blocked-ports.ts';
import { wholeNumberVariable } from '../optional-variable.ts';
import { plainMessage } from '../plain-message.ts';
import { maxBacklogFromEnv } from '../polling/backlog-gauge.ts';
import { POLL_LOOP_CONCURRENCY_DEFAULT } from '../polling/poll-loop-options.ts';
import { POLL_INTERVAL_MAX_MS, pollSettingsFromEnv } from '../polling/poll-settings.ts';
import { RECORDS_IN_FLIGHT_DEFAULT } from '../polling/record-budget.ts';
import { trackedTargetsFromEnv } from '../polling/tracked-targets.ts';
import {
  DispatcherEnvSchema,
  type DispatcherSettings,
  dispatcherSettings,
} from '../webhooks/dispatcher-env.ts';
import { checkSimulatorEnv } from './connector-source.ts';

/** Defaults of `change-bridge start` (design.md, CLI and Configuration). */
export const LOCAL_DEFAULTS = {
  port: 4000,
  host: '127.0.0.1',
  dataDir: '.bridge',
  pollIntervalMs: 5000,
  simulatorActivityPerSecond: 2,
} as const;

const BooleanText = z
  .enum(['true', 'false', '1', '0'])
  .transform((value) => value === 'true' || value === '1');

const PORT_MESSAGE = 'must be a port number from 0 to 65535';

/** A DNS host name: labels of letters, digits and inner hyphens, separated by dots. */
const HOST_NAME =
  /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** True for `host` or `host:port` as a `Host` header carries it: a name, an IPv4 address or a bracketed IPv6 one. */
function isHostHeaderValue(entry: string): boolean {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/.exec(entry);
  if (!match) return false;
  const [, ipv6, name, port] = match;
  if (port !== undefined && Number(port) > 65_535) return false;
  if (ipv6 !== undefined) return isIP(ipv6) === 6;
  // Looser than HOST_NAME: container names (`my_bridge`) reach a server under their own name.
  return /^[A-Za-z0-9_]([A-Za-z0-9_.-]*[A-Za-z0-9_])?$/.test(name!);
}

/** The host of a `Host` header value (`host` or `host:port`), brackets kept: `[::1]:4000` gives `[::1]`. */
function hostOfHeaderValue(entry: string): string {
  return entry.startsWith('[') ? entry.slice(0, entry.indexOf(']') + 1) : entry.split(':')[0]!;
}

/** An entry of a list variable named by its place (`entry 2 of 3`), not its value. */
function entryName(index: number, count: number): string {
  return `entry ${index + 1} of ${count}`;
}

/** The variables `start` reads besides the POLL_* and CONNECTOR_* ones. */
export const LocalEnvSchema = z.object({
  // An empty BRIDGE_PORT is unset (readLocalConfig drops it), an empty --port a bad port.
  BRIDGE_PORT: withoutFetchBlockedPorts(
    z
      .string()
      .regex(/^\d{1,5}$/, { error: PORT_MESSAGE })
      .transform(Number)
      // Digits only here: harmless to show (isPortDigits), so the message names the value.
      .pipe(
        z.number().max(65_535, {
          error: (issue) => `${String(issue.input)} is not a port number from 0 to 65535`,
        }),
      ),
    ADMIN_API_UNREACHABLE,
  ).default(LOCAL_DEFAULTS.port),
  BRIDGE_HOST: z
    .string()
    .refine((host) => isIP(host) !== 0 || HOST_NAME.test(host), {
      error: 'must be an IP address or a host name, e.g. 127.0.0.1, 0.0.0.0, ::1 or localhost',
    })
    .default(LOCAL_DEFAULTS.host),
  BRIDGE_ALLOWED_HOSTS: z
    .string()
    .default('')
    .transform((text, context) => {
      const entries = commaItems(text, context);
      if (entries.includes('')) return z.NEVER;
      // A URL or a pattern never equals a Host header: every request under it would get 403.
      const bad = entries.findIndex((entry) => !isHostHeaderValue(entry));
      if (bad >= 0) {
        context.addIssue({
          code: 'custom',
          message: `${entryName(bad, entries.length)} is not a Host header value: give host or host:port, e.g. bridge.internal:4000 or [::1]:4000`,
        });
      }
      return entries;
    }),
  // Trimmed, as every client sends it (fetch and the console trim it; a header cannot carry a
  // newline read from a file); an empty value counts as unset (no token).
  // One the clients cannot send (a line break, a control or non-ASCII character) is refused,
  // without showing it: the CLI refuses it too, and the console could never send it.
  BRIDGE_ADMIN_TOKEN: z
    .string()
    .optional()
    .transform((token) => (token?.trim() ? token.trim() : undefined))
    .refine((token) => token === undefined || isHeaderSafeToken(token), {
      error: HEADER_UNSAFE_TOKEN_MESSAGE,
    }),
  BRIDGE_DATA_DIR: z.string().min(1).default(LOCAL_DEFAULTS.dataDir),
  // A bare number is milliseconds: `5` would poll every 5 ms, so intervals below 100ms are
  // refused (the shortest a connection may have) rather than taken.
  POLL_INTERVAL: DurationSchema.pipe(
    z
      .number()
      .min(100, { error: 'must be at least 100ms (a bare number is milliseconds)' })
      .max(POLL_INTERVAL_MAX_MS, { error: 'must be at most 1d' }),
  ).default(LOCAL_DEFAULTS.pollIntervalMs),
  /** Streams the local poll loop polls at once, over every connection. */
  POLL_CONCURRENCY: wholeNumberVariable(z.number().min(1).max(10_000)).default(
    POLL_LOOP_CONCURRENCY_DEFAULT,
  ),
  /** Records the local poll loop's pages hold in flight at most, over every stream. */
  POLL_MAX_RECORDS_IN_FLIGHT: wholeNumberVariable(z.number().min(1_000).max(10_000_000)).default(
    RECORDS_IN_FLIGHT_DEFAULT,
  ),
  /** Whether dynalite runs in a worker thread of its own (see LocalConfig.storeThread). */
  BRIDGE_STORE_THREAD: BooleanText.default(false),
  // Local runs deliver to receivers on this machine, so loopback is allowed unless turned off.
  WEBHOOK_ALLOW_PRIVATE: BooleanText.default(true),
  CONNECTOR_BASE_URL: ConnectorBaseUrlSchema.optional(),
});

/** `start` flags; each overrides its variable. */
export interface StartFlags {
  port?: string;
  host?: string;
  dataDir?: string;
  pollInterval?: string;
  demoReceiver?: boolean;
  json?: boolean;
}

/** The resolved configuration of a local run. */
export interface LocalConfig {
  port: number;
  /** Interface the admin API listens on (BRIDGE_HOST). */
  host: string;
  /** More `Host` values the admin API answers to (BRIDGE_ALLOWED_HOSTS). */
  allowedHosts: string[];
  /** BRIDGE_ADMIN_TOKEN: bearer token of the admin API; required off loopback. */
  adminToken: string | undefined;
  dataDir: string;
  pollIntervalMs: number;
  /** POLL_CONCURRENCY: streams polled at once. */
  pollConcurrency: number;
  /** POLL_MAX_RECORDS_IN_FLIGHT: records of pages being read, diffed and stored at once. */
  pollMaxRecordsInFlight: number;
  allowPrivate: boolean;
  /**
   * BRIDGE_STORE_THREAD: dynalite (validation, conditions, LevelDB) runs in a worker thread
   * beside the main one instead of on it. On 2 cores shared with the receiver it delivered a
   * 100,000-event backfill about 40 % faster, for about 35 MB more memory (off by default:
   * design.md's 300 MB bound).
   */
  storeThread: boolean;
  /** Poll an external connector instead of the built-in simulator. */
  externalConnector: boolean;
  /** The dispatcher's timeout and endpoint health thresholds (DELIVERY_TIMEOUT_MS, WEBHOOK_*). */
  dispatch: DispatcherSettings;
  demoReceiver: boolean;
  json: boolean;
}

/** Every variable `start` reads here: its own and the dispatcher's (shared with AWS). */
const StartEnvSchema = LocalEnvSchema.extend(DispatcherEnvSchema.shape);

/** The variables the flags of `start` set: each flag's option key and its name on the command line. */
const FLAG_OF_VARIABLE = {
  BRIDGE_PORT: { key: 'port', flag: '--port' },
  BRIDGE_HOST: { key: 'host', flag: '--host' },
  BRIDGE_DATA_DIR: { key: 'dataDir', flag: '--data-dir' },
  POLL_INTERVAL: { key: 'pollInterval', flag: '--poll-interval' },
} as const satisfies Record<string, { key: keyof StartFlags; flag: string }>;

type FlagVariable = keyof typeof FLAG_OF_VARIABLE;

/**
 * Reads the local configuration: flags over environment over defaults.
 * @throws ValidationError naming the flag or the variable that was set, e.g.
 * `--poll-interval: is not a duration …` or `POLL_INTERVAL: is not a duration …; the value
 * set has 4 characters`: no message shows a variable's value, which may be a secret set in
 * the wrong variable (a flag's, typed by the user, may be shown), but for a port's digits,
 * named once and without their length (`BRIDGE_PORT: 6000 is a port fetch …`, isPortDigits);
 * or `BRIDGE_ADMIN_TOKEN` when the admin API would bind a non-loopback interface without it, or
 * answer to a non-loopback name BRIDGE_ALLOWED_HOSTS gives; `--demo-receiver` with
 * WEBHOOK_ALLOW_PRIVATE=false (its loopback receiver would be refused);
 * also when BRIDGE_MAX_BACKLOG, POLL_EXPORT_IDS, POLL_PRODUCT_IDS or a simulator variable is bad
 * (or a CONNECTOR_* token is set without CONNECTOR_BASE_URL).
 */
export function readLocalConfig(
  env: Record<string, string | undefined>,
  flags: StartFlags,
): LocalConfig {
  const fromFlags = Object.fromEntries(
    Object.entries(FLAG_OF_VARIABLE)
      .map(([variable, { key }]) => [variable, flags[key]])
      .filter(([, value]) => value !== undefined),
  );
  // An empty BRIDGE_PORT is unset, as for the admin commands (their --api default): both then
  // use port 4000. An empty --port stays, and is refused: it names no port.
  const variables = env.BRIDGE_PORT === '' ? { ...env, BRIDGE_PORT: undefined } : env;
  const result = StartEnvSchema.safeParse({ ...variables, ...fromFlags });
  if (!result.success) {
    // A value given as a flag is named by the flag the user typed, not the variable it sets.
    throw new ValidationError(
      CONFIGURATION,
      result.error.issues.map((issue) => {
        const path = formatIssuePath(issue.path);
        const message = plainMessage(issue);
        if (path in fromFlags)
          return { path: FLAG_OF_VARIABLE[path as FlagVariable].flag, message };
        const value = variableOf(variables, path);
        // A port's digits are named by the message itself (isPortDigits), never by length too.
        if (path === 'BRIDGE_PORT' && isPortDigits(value)) return { path, message };
        return { path, message: withValueLength(message, value) };
      }),
    );
  }
  const parsed = result.data;
  // Variables the runtime reads where it uses them, checked here as well: a bad one stops
  // start before anything opens (the data dir, the store, the simulator).
  maxBacklogFromEnv(env.BRIDGE_MAX_BACKLOG);
  trackedTargetsFromEnv(env);
  pollSettingsFromEnv({ ...env, POLL_INTERVAL: `${parsed.POLL_INTERVAL}ms` }, Date.now());
  if (parsed.CONNECTOR_BASE_URL === undefined) checkSimulatorEnv(env);
  else connectorConfigFromEnv(env);
  if (!isLoopbackHost(parsed.BRIDGE_HOST) && parsed.BRIDGE_ADMIN_TOKEN === undefined) {
    // The typed flag's host is shown; the variable's is not (a value may be a secret).
    const binds =
      'BRIDGE_HOST' in fromFlags
        ? `${parsed.BRIDGE_HOST}, a non-loopback interface (${FLAG_OF_VARIABLE.BRIDGE_HOST.flag})`
        : 'a non-loopback interface (BRIDGE_HOST)';
    throw new ValidationError(CONFIGURATION, [
      { path: 'BRIDGE_ADMIN_TOKEN', message: `required when the admin API binds ${binds}` },
    ]);
  }
  // Another name reaches the API off loopback (a proxy forwards what its clients send under it):
  // the token is required there as it is for binding another interface.
  const hosts = parsed.BRIDGE_ALLOWED_HOSTS;
  const exposedAs = hosts.findIndex((entry) => !isLoopbackHost(hostOfHeaderValue(entry)));
  if (exposedAs >= 0 && parsed.BRIDGE_ADMIN_TOKEN === undefined) {
    throw new ValidationError(CONFIGURATION, [
      {
        path: 'BRIDGE_ADMIN_TOKEN',
        message: `required when BRIDGE_ALLOWED_HOSTS names a host other than loopback (${entryName(exposedAs, hosts.length)}): whatever reaches the admin API under that name, a proxy's clients, would call it without authentication`,
      },
    ]);
  }
  // The demo receiver listens on 127.0.0.1 over http, which this setting refuses as a receiver:
  // said here, before anything opens, rather than when its subscription is refused.
  if (flags.demoReceiver && !parsed.WEBHOOK_ALLOW_PRIVATE) {
    throw new ValidationError(CONFIGURATION, [
      {
        path: '--demo-receiver',
        message:
          'its receiver listens on http://127.0.0.1, a receiver WEBHOOK_ALLOW_PRIVATE=false refuses: leave out --demo-receiver, or unset WEBHOOK_ALLOW_PRIVATE',
      },
    ]);
  }
  return {
    port: parsed.BRIDGE_PORT,
    host: parsed.BRIDGE_HOST,
    allowedHosts: parsed.BRIDGE_ALLOWED_HOSTS,
    adminToken: parsed.BRIDGE_ADMIN_TOKEN,
    dataDir: parsed.BRIDGE_DATA_DIR,
    pollIntervalMs: parsed.POLL_INTERVAL,
    pollConcurrency: parsed.POLL_CONCURRENCY,
    pollMaxRecordsInFlight: parsed.POLL_MAX_RECORDS_IN_FLIGHT,
    allowPrivate: parsed.WEBHOOK_ALLOW_PRIVATE,
    storeThread: parsed.BRIDGE_STORE_THREAD,
    externalConnector: parsed.CONNECTOR_BASE_URL !== undefined,
    dispatch: dispatcherSettings(parsed),
    demoReceiver: flags.demoReceiver ?? false,
    json: flags.json ?? false,
  };
}
