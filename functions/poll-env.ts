import { z } from 'zod';
import { ConnectionSecretArnsSchema } from '../shared/connector/connection-secrets.ts';
import { parseOrThrow } from '../shared/errors.ts';
import type { StreamDefinition } from '../shared/polling/poll-context.ts';
import {
  type PollSettings,
  pollSettingsFromEnv,
  streamDefinitions,
} from '../shared/polling/poll-settings.ts';
import { type TrackedTargets, trackedTargetsFromEnv } from '../shared/polling/tracked-targets.ts';

/** Variables the planner and poller Lambdas read (set by infra/). */
export const PollLambdaEnvSchema = z.object({
  STATE_TABLE_NAME: z.string().min(1),
  POLL_JOB_QUEUE_URL: z.url(),
  /** The starting set of connections from the CDK props, each with its own secret (optional). */
  CONNECTION_SECRET_ARNS: ConnectionSecretArnsSchema.default({}),
  /** The deployment's one secret: `{ baseUrl, clientToken, client? }` for connections stored as data. */
  DEPLOYMENT_SECRET_ARN: z.string().min(1).optional(),
  /** The KMS key that wraps the data keys of stored AccessTokens. */
  CONNECTION_TOKEN_KEY_ARN: z.string().min(1).optional(),
});

/** Parsed poll Lambda configuration. */
export interface PollLambdaConfig {
  tableName: string;
  pollJobQueueUrl: string;
  secretArns: Record<string, string>;
  deploymentSecretArn: string | undefined;
  tokenKeyArn: string | undefined;
  settings: PollSettings;
  /** POLL_EXPORT_IDS and POLL_PRODUCT_IDS: followed by every connection that names none of its own. */
  tracked: TrackedTargets;
  /** The streams of the props' connections (stored connections are read from the table). */
  definitions: StreamDefinition[];
}

/**
 * Reads the environment once per cold start.
 * @throws ValidationError naming the missing or malformed variable.
 */
export function readPollLambdaEnv(
  env: Record<string, string | undefined>,
  nowMs: number,
): PollLambdaConfig {
  const parsed = parseOrThrow(PollLambdaEnvSchema, env, 'environment');
  const settings = pollSettingsFromEnv(env, nowMs);
  const tracked = trackedTargetsFromEnv(env);
  const definitions = Object.keys(parsed.CONNECTION_SECRET_ARNS).flatMap((connectionId) =>
    streamDefinitions(connectionId, settings, tracked),
  );
  return {
    tableName: parsed.STATE_TABLE_NAME,
    pollJobQueueUrl: parsed.POLL_JOB_QUEUE_URL,
    secretArns: parsed.CONNECTION_SECRET_ARNS,
    deploymentSecretArn: parsed.DEPLOYMENT_SECRET_ARN,
    tokenKeyArn: parsed.CONNECTION_TOKEN_KEY_ARN,
    settings,
    tracked,
    definitions,
  };
}
