import { z } from 'zod';
import { commaItems } from '../shared/comma-list.ts';
import { parseEnvironment } from '../shared/env-issues.ts';
import { parseOrThrow, ValidationError } from '../shared/errors.ts';
import { type ChangeBridgeConfig, ChangeBridgePropsSchema, ConnectionIdSchema } from './props.ts';

/** Context key (in cdk.json or `-c`) holding per-stage settings: `{ "<stage>": { …ChangeBridgeProps } }`. */
export const STAGES_CONTEXT_KEY = 'changeBridge';

const StageNameSchema = z
  .string()
  .regex(
    /^[a-z][a-z0-9-]{0,19}$/,
    'use 1-20 lowercase letters, digits or dashes, starting with a letter',
  );

/**
 * Settings of one stage: stack options plus any ChangeBridge props (connections default
 * to `main`), which the construct's own schema validates afterwards.
 */
const StageSettingsSchema = z.looseObject({
  terminationProtection: z.boolean().default(true),
});

/**
 * Overrides given on the command line (`-c pollRateMinutes=5`): context values from the
 * CLI are strings, so numbers are coerced and connections are a comma-separated list
 * (empty: none, `-c connections=`).
 */
const CommandLineOverridesSchema = z.object({
  pollRateMinutes: z.coerce
    .number({ error: 'use a whole number of minutes, e.g. -c pollRateMinutes=5' })
    .int('use a whole number of minutes, e.g. -c pollRateMinutes=5')
    .optional(),
  alarmEmail: z.string().optional(),
  functionsDir: z.string().optional(),
  connections: z
    .string()
    .transform((list, context) => commaItems(list, context).map((id) => ({ id })))
    .pipe(z.array(z.object({ id: ConnectionIdSchema })))
    .optional(),
});

/** Every context key the app reads. */
const APP_CONTEXT_KEYS = [
  'stage',
  STAGES_CONTEXT_KEY,
  ...Object.keys(CommandLineOverridesSchema.shape),
] as const;

/**
 * A key of the app's own form (camelCase, like every key it reads). The CDK's keys have a
 * colon or a dash (`@aws-cdk/…:flag`, `aws:cdk:…`, lookups, `acknowledged-issue-numbers`),
 * so they are never taken for a misspelt setting.
 */
const APP_KEY_FORM = /^[a-z][A-Za-z0-9]*$/;

/** The environment variables the app reads (CDK_DEFAULT_* are set by the CDK CLI). */
const AppEnvSchema = z.object({
  BRIDGE_STAGE: StageNameSchema.optional(),
  CDK_DEFAULT_ACCOUNT: z.string().optional(),
  CDK_DEFAULT_REGION: z.string().optional(),
});

/** Everything the app needs to build one stage. */
export interface StageConfig {
  stage: string;
  account: string | undefined;
  region: string | undefined;
  terminationProtection: boolean;
  bridge: ChangeBridgeConfig;
}

/**
 * Reads the stage configuration: the stage from context `stage` or `BRIDGE_STAGE`
 * (default `dev`), its settings from context `changeBridge.<stage>`, then command-line
 * overrides. Stage-dependent defaults keep two stages in one account apart: secrets under
 * `change-bridge/<stage>`, metrics under service `change-bridge-<stage>`. `contextKeys`, the
 * keys set in context, lets it refuse a camelCase key it does not read (`-c pollRateMinute=5`
 * would otherwise be ignored without a word).
 * @throws ValidationError naming the offending field or key.
 * @example loadStageConfig((key) => app.node.tryGetContext(key), process.env, Object.keys(app.node.getAllContext()))
 */
export function loadStageConfig(
  context: (key: string) => unknown,
  env: Record<string, string | undefined>,
  contextKeys: Iterable<string> = [],
): StageConfig {
  const appEnv = parseEnvironment(AppEnvSchema, env);
  const stage = parseOrThrow(
    StageNameSchema.default('dev'),
    context('stage') ?? appEnv.BRIDGE_STAGE,
    'context stage',
  );
  const stages = parseOrThrow(
    z.record(z.string(), z.unknown()).default({}),
    parseJsonIfString(context(STAGES_CONTEXT_KEY)),
    `context ${STAGES_CONTEXT_KEY}`,
  );
  const settings = parseOrThrow(
    StageSettingsSchema,
    stages[stage] ?? {},
    `context ${STAGES_CONTEXT_KEY}.${stage}`,
  );
  refuseUnknownKeys(contextKeys, stage);
  const overrides = parseOrThrow(
    CommandLineOverridesSchema,
    Object.fromEntries(
      Object.keys(CommandLineOverridesSchema.shape)
        .map((key) => [key, context(key)])
        .filter(([, value]) => value !== undefined),
    ),
    'context',
  );
  const { terminationProtection, ...bridgeSettings } = settings;
  const bridge = parseOrThrow(
    ChangeBridgePropsSchema,
    {
      connections: [{ id: 'main' }],
      secretNamePrefix: `change-bridge/${stage}`,
      serviceName: `change-bridge-${stage}`,
      ...withoutUndefined(bridgeSettings),
      ...withoutUndefined(overrides),
    },
    `stage ${stage}`,
  );
  refuseSharedOutputKeys(bridge, stage);
  return {
    stage,
    account: appEnv.CDK_DEFAULT_ACCOUNT,
    region: appEnv.CDK_DEFAULT_REGION,
    terminationProtection,
    bridge,
  };
}

/**
 * Throws naming each context key of the app's form that it does not read: a misspelt `-c`
 * key, or a ChangeBridge prop given where only the stage settings take it.
 */
function refuseUnknownKeys(contextKeys: Iterable<string>, stage: string): void {
  const known = new Set<string>(APP_CONTEXT_KEYS);
  const unknown = [...contextKeys].filter((key) => APP_KEY_FORM.test(key) && !known.has(key));
  if (unknown.length === 0) return;
  const props = new Set(Object.keys(ChangeBridgePropsSchema.shape));
  const commandLine = `the command line takes ${APP_CONTEXT_KEYS.filter((key) => key !== STAGES_CONTEXT_KEY).join(', ')}`;
  throw new ValidationError(
    'context',
    unknown.map((key) => ({
      path: key,
      message:
        props.has(key) || key === 'terminationProtection'
          ? `set it in cdk.json under context.${STAGES_CONTEXT_KEY}.${stage} (${commandLine})`
          : `unknown key (${commandLine})`,
    })),
  );
}

/**
 * Throws when two props connections would share a Stateful stack output: its key is
 * `ConnectionSecret<id>` without the id's dashes (README), so `a-b` and `ab` would both be
 * `ConnectionSecretab`, which CloudFormation cannot hold twice.
 */
function refuseSharedOutputKeys(bridge: ChangeBridgeConfig, stage: string): void {
  const keys = new Map<string, string>();
  bridge.connections.forEach(({ id }, index) => {
    const key = `ConnectionSecret${id.replaceAll('-', '')}`;
    const other = keys.get(key);
    if (other !== undefined) {
      throw new ValidationError(`stage ${stage}`, [
        {
          path: `connections[${index}].id`,
          message: `${id} and ${other} would share the stack output ${key}: use ids that differ in more than dashes`,
        },
      ]);
    }
    keys.set(key, id);
  });
}

/** `-c changeBridge='{"prod":{…}}'` arrives as a string; cdk.json gives an object. */
function parseJsonIfString(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

function withoutUndefined(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));
}
