import { z } from 'zod';
import { DurationSchema } from '../duration.ts';
import { parseOrThrow } from '../errors.ts';

/** Defaults of `change-bridge start` (design.md, CLI and Configuration). */
export const LOCAL_DEFAULTS = {
  port: 4000,
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
  BRIDGE_DATA_DIR: z.string().min(1).default(LOCAL_DEFAULTS.dataDir),
  POLL_INTERVAL: DurationSchema.default(LOCAL_DEFAULTS.pollIntervalMs),
  // Local runs deliver to receivers on this machine, so loopback is allowed unless turned off.
  WEBHOOK_ALLOW_PRIVATE: BooleanText.default(true),
  CONNECTOR_BASE_URL: z.url().optional(),
});

/** `start` flags; each overrides its variable. */
export interface StartFlags {
  port?: string;
  dataDir?: string;
  pollInterval?: string;
  demoReceiver?: boolean;
  json?: boolean;
}

/** The resolved configuration of a local run. */
export interface LocalConfig {
  port: number;
  dataDir: string;
  pollIntervalMs: number;
  allowPrivate: boolean;
  /** Poll an external connector instead of the built-in simulator. */
  externalConnector: boolean;
  demoReceiver: boolean;
  json: boolean;
}

/**
 * Reads the local configuration: flags over environment over defaults.
 * @throws ValidationError naming the flag's variable, e.g. `POLL_INTERVAL: "soon" is not a duration`.
 */
export function readLocalConfig(
  env: Record<string, string | undefined>,
  flags: StartFlags,
): LocalConfig {
  const merged = {
    ...env,
    ...(flags.port !== undefined ? { BRIDGE_PORT: flags.port } : {}),
    ...(flags.dataDir !== undefined ? { BRIDGE_DATA_DIR: flags.dataDir } : {}),
    ...(flags.pollInterval !== undefined ? { POLL_INTERVAL: flags.pollInterval } : {}),
  };
  const parsed = parseOrThrow(LocalEnvSchema, merged, 'configuration');
  return {
    port: parsed.BRIDGE_PORT,
    dataDir: parsed.BRIDGE_DATA_DIR,
    pollIntervalMs: parsed.POLL_INTERVAL,
    allowPrivate: parsed.WEBHOOK_ALLOW_PRIVATE,
    externalConnector: parsed.CONNECTOR_BASE_URL !== undefined,
    demoReceiver: flags.demoReceiver ?? false,
    json: flags.json ?? false,
  };
}
