import { createRequire } from 'node:module';
import { type App, Tags, Validations } from 'aws-cdk-lib';
import type { AwsSolutionsChecks } from 'cdk-nag';
import { RuntimeStack, StatefulStack } from './stacks.ts';
import { loadStageConfig, type StageConfig } from './stage-config.ts';

const requireFromHere = createRequire(import.meta.url);

/**
 * cdk-nag's AwsSolutions pack, loaded when an app is built rather than when `change-bridge/infra`
 * is imported: cdk-nag is a devDependency of this repository (its own `cdk synth`), so a CDK app
 * that embeds the `ChangeBridge` construct would otherwise fail to import the package without it.
 * @throws Error naming cdk-nag when it is not installed.
 */
function loadAwsSolutionsChecks(): typeof AwsSolutionsChecks {
  try {
    return (requireFromHere('cdk-nag') as typeof import('cdk-nag')).AwsSolutionsChecks;
  } catch (error) {
    throw new Error('createChangeBridgeApp runs cdk-nag during synthesis: install cdk-nag 3', {
      cause: error,
    });
  }
}

const CROSS_STACK_REFERENCES_FLAG = '@aws-cdk/core:defaultCrossStackReferences';

/** The two stacks of one stage, as built by {@link createChangeBridgeApp}. */
export interface ChangeBridgeApp {
  config: StageConfig;
  stateful: StatefulStack;
  runtime: RuntimeStack;
}

/**
 * Builds one stage of change-bridge into `app`: `ChangeBridge-<stage>-Stateful` and
 * `ChangeBridge-<stage>-Runtime`, with the cdk-nag AwsSolutions pack running inside
 * synthesis (an unacknowledged finding fails `cdk synth`).
 * @throws ValidationError when the stage configuration is invalid, naming the field (or the
 * context key the app does not read).
 */
export function createChangeBridgeApp(
  app: App,
  env: Record<string, string | undefined>,
): ChangeBridgeApp {
  // Cross-stack exports stay strong (CloudFormation refuses to delete an export in use),
  // stated explicitly so synth does not warn about the default.
  if (app.node.tryGetContext(CROSS_STACK_REFERENCES_FLAG) === undefined) {
    app.node.setContext(CROSS_STACK_REFERENCES_FLAG, 'strong');
  }
  const config = loadStageConfig(
    (key) => app.node.tryGetContext(key),
    env,
    Object.keys(app.node.getAllContext()),
  );
  const stackEnv = { account: config.account, region: config.region };
  const prefix = `ChangeBridge-${config.stage}`;
  const stateful = new StatefulStack(app, `${prefix}-Stateful`, {
    env: stackEnv,
    description: `change-bridge ${config.stage}: state table, event bus, queues, secrets`,
    terminationProtection: config.terminationProtection,
    config: config.bridge,
  });
  const runtime = new RuntimeStack(app, `${prefix}-Runtime`, {
    env: stackEnv,
    description: `change-bridge ${config.stage}: functions, schedule, admin API, alarms`,
    config: config.bridge,
    state: stateful.state,
  });
  Tags.of(app).add('app', 'change-bridge');
  Tags.of(app).add('stage', config.stage);
  const AwsSolutionsPack = loadAwsSolutionsChecks();
  Validations.of(app).addPlugins(new AwsSolutionsPack(app));
  return { config, stateful, runtime };
}
