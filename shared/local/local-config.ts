import { z } from 'zod';
import { isLoopbackHost } from '../admin/request-guard.ts';
import { DurationSchema } from '../duration.ts';
import { parseOrThrow, ValidationError } from '../errors.ts';
import { POLL_LOOP_CONCURRENCY_DEFAULT } from '../polling/poll-runner.ts';
import { RECORDS_IN_FLIGHT_DEFAULT } from '../polling/record-budget.ts';

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

/** The variables `start` reads besides the POLL_* and CONNECTOR_* ones. */
export const LocalEnvSchema = z.object({
  BRIDGE_PORT: z.coerce.number().int().min(0).max(65_535).default(LOCAL_DEFAULTS.port),
  BRIDGE_HOST: z.string().min(1).default(LOCAL_DEFAULTS.host),
  BRIDGE_ALLOWED_HOSTS: z
    .string()
    .default('')
    .transform((text) =>
      text
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== ''),
    ),
  // An empty value counts as unset (no token).
  BRIDGE_ADMIN_TOKEN: z
    .string()
    .optional()
    .transform((token) => (token === '' ? undefined : token)),
  BRIDGE_DATA_DIR: z.string().min(1).default(LOCAL_DEFAULTS.dataDir),
  POLL_INTERVAL: DurationSchema.default(LOCAL_DEFAULTS.pollIntervalMs),
  /** Streams the local poll loop polls at once, over every connection. */
  POLL_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(POLL_LOOP_CONCURRENCY_DEFAULT),
  /** Records the local poll loop's pages hold in flight at most, over every stream. */
  POLL_MAX_RECORDS_IN_FLIGHT: z.coerce
    .number()
    .int()
    .min(1_000)
    .max(10_000_000)
    .default(RECORDS_IN_FLIGHT_DEFAULT),
  /** Whether dynalite runs in a worker thread of its own (see LocalConfig.storeThread). */
  BRIDGE_STORE_THREAD: BooleanText.default(false),
  // Local runs deliver to receivers on this machine, so loopback is allowed unless turned off.
  WEBHOOK_ALLOW_PRIVATE: BooleanText.default(true),
  CONNECTOR_BASE_URL: z.url().optional(),
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
  demoReceiver: boolean;
  json: boolean;
}

/**
 * Reads the local configuration: flags over environment over defaults.
 * @throws ValidationError naming the flag's variable, e.g. `POLL_INTERVAL: "soon" is not a duration`,
 * or `BRIDGE_ADMIN_TOKEN` when the admin API would bind a non-loopback interface without it.
 */
export function readLocalConfig(
  env: Record<string, string | undefined>,
  flags: StartFlags,
): LocalConfig {
  const merged = {
    ...env,
    ...(flags.port !== undefined ? { BRIDGE_PORT: flags.port } : {}),
    ...(flags.host !== undefined ? { BRIDGE_HOST: flags.host } : {}),
    ...(flags.dataDir !== undefined ? { BRIDGE_DATA_DIR: flags.dataDir } : {}),
    ...(flags.pollInterval !== undefined ? { POLL_INTERVAL: flags.pollInterval } : {}),
  };
  const parsed = parseOrThrow(LocalEnvSchema, merged, 'configuration');
  if (!isLoopbackHost(parsed.BRIDGE_HOST) && parsed.BRIDGE_ADMIN_TOKEN === undefined) {
    throw new ValidationError('configuration', [
      {
        path: 'BRIDGE_ADMIN_TOKEN',
        message: `required when the admin API binds ${parsed.BRIDGE_HOST}, a non-loopback interface (BRIDGE_HOST)`,
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
    demoReceiver: flags.demoReceiver ?? false,
    json: flags.json ?? false,
  };
}
