import { z } from 'zod';
import { splitCommaText } from '../shared/comma-list.ts';
import {
  ConnectionSecretArnsSchema,
  connectionSecretName,
} from '../shared/connector/connection-secrets.ts';
import { DurationSchema } from '../shared/duration.ts';
import { parseEnvironment } from '../shared/env-issues.ts';
import type { StreamDefinition } from '../shared/polling/poll-context.ts';
import {
  type PollSettings,
  pollSettingsFromEnv,
  streamDefinitions,
} from '../shared/polling/poll-settings.ts';
import { type TrackedTargets, trackedTargetsFromEnv } from '../shared/polling/tracked-targets.ts';

/** Variables the planner and poller Lambdas read (set by infra/). */
export const PollLambdaEnvSchema = z
  .object({
    STATE_TABLE_NAME: z.string().min(1),
    POLL_JOB_QUEUE_URL: z.url(),
    /**
     * The starting set of connections from the CDK props, each with its own secret (optional),
     * named `<CONNECTION_SECRET_PREFIX>/connections/<id>`: the ids and the prefix, not an ARN
     * per connection, keep the environment within Lambda's 4 KB.
     */
    CONNECTION_IDS: z
      .preprocess(splitCommaText, z.array(z.string().regex(/^[A-Za-z0-9_-]+$/)))
      .default([]),
    CONNECTION_SECRET_PREFIX: z.string().min(1).optional(),
    /** The same as a JSON object of connection id to secret ARN (the form stacks set before). */
    CONNECTION_SECRET_ARNS: ConnectionSecretArnsSchema.default({}),
    /** The deployment's one secret: `{ baseUrl, clientToken, client? }` for connections stored as data. */
    DEPLOYMENT_SECRET_ARN: z.string().min(1).optional(),
    /** The KMS key that wraps the data keys of stored AccessTokens. */
    CONNECTION_TOKEN_KEY_ARN: z.string().min(1).optional(),
    /**
     * The planner's schedule rate (set on the planner alone): how far ahead it plans. Absent
     * (a stack deployed before it), the planner plans one POLL_INTERVAL ahead.
     */
    PLANNER_RATE: DurationSchema.optional(),
    /** `false`: no `WatermarkAgeSeconds` per stream (a custom metric each); the oldest is sent anyway. */
    STREAM_METRICS: z
      .enum(['true', 'false'])
      .default('true')
      .transform((value) => value === 'true'),
  })
  .refine((env) => env.CONNECTION_IDS.length === 0 || env.CONNECTION_SECRET_PREFIX, {
    path: ['CONNECTION_SECRET_PREFIX'],
    message: 'required with CONNECTION_IDS: the connection secrets are <prefix>/connections/<id>',
  });

/** Parsed poll Lambda configuration. */
export interface PollLambdaConfig {
  tableName: string;
  pollJobQueueUrl: string;
  /** Connection id → its secret, as GetSecretValue takes it (the secret's name or ARN). */
  secretIds: Record<string, string>;
  deploymentSecretArn: string | undefined;
  tokenKeyArn: string | undefined;
  settings: PollSettings;
  /** POLL_EXPORT_IDS and POLL_PRODUCT_IDS: followed by every connection that names none of its own. */
  tracked: TrackedTargets;
  /** The streams of the props' connections (stored connections are read from the table). */
  definitions: StreamDefinition[];
  /** Whether the poller sends `WatermarkAgeSeconds` per stream (STREAM_METRICS). */
  streamMetrics: boolean;
  /** PLANNER_RATE: how often the planner runs, when the stack says. */
  plannerRateMs: number | undefined;
}

/**
 * Reads the environment once per cold start.
 * @throws ValidationError naming the missing or malformed variable, never showing its value.
 */
export function readPollLambdaEnv(
  env: Record<string, string | undefined>,
  nowMs: number,
): PollLambdaConfig {
  const parsed = parseEnvironment(PollLambdaEnvSchema, env);
  const settings = pollSettingsFromEnv(env, nowMs);
  const tracked = trackedTargetsFromEnv(env);
  const prefix = parsed.CONNECTION_SECRET_PREFIX ?? '';
  // Without a prototype: a stored connection may be named `constructor` or `toString`, and
  // looking it up here must not find Object's and take it for one of the stack's.
  const secretIds: Record<string, string> = Object.assign(
    Object.create(null) as Record<string, string>,
    Object.fromEntries(
      parsed.CONNECTION_IDS.map((id) => [id, connectionSecretName(prefix, id)] as const),
    ),
    parsed.CONNECTION_SECRET_ARNS,
  );
  const definitions = Object.keys(secretIds).flatMap((connectionId) =>
    streamDefinitions(connectionId, settings, tracked),
  );
  return {
    tableName: parsed.STATE_TABLE_NAME,
    pollJobQueueUrl: parsed.POLL_JOB_QUEUE_URL,
    secretIds,
    deploymentSecretArn: parsed.DEPLOYMENT_SECRET_ARN,
    tokenKeyArn: parsed.CONNECTION_TOKEN_KEY_ARN,
    settings,
    tracked,
    definitions,
    streamMetrics: parsed.STREAM_METRICS,
    plannerRateMs: parsed.PLANNER_RATE,
  };
}
