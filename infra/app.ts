import { readFileSync } from 'node:fs';
import { ValidationError } from '../shared/errors.ts';
import { readCdkContext } from './cdk-context.ts';
import { loadStageConfig } from './stage-config.ts';

// The CDK CLI runs this file (cdk.json: `npx tsx infra/app.ts`); the app reads its
// stage from context and the environment, and adds cdk-nag checks to synthesis.
try {
  // Settings are checked before aws-cdk-lib and the stacks load (seconds of CPU), so a bad
  // one fails at once; createChangeBridgeApp reads the same context again through the App.
  const context = readCdkContext(process.env, (path) => JSON.parse(readFileSync(path, 'utf8')));
  loadStageConfig((key) => context[key], process.env, Object.keys(context));
  const { App } = await import('aws-cdk-lib');
  const { createChangeBridgeApp } = await import('./create-app.ts');
  const app = new App();
  createChangeBridgeApp(app, process.env);
  app.synth();
} catch (error) {
  // A bad setting (`-c pollRateMinutes=abc`, a misspelt key) is the user's to fix: one line
  // naming it, not a stack trace. Anything else is a bug and keeps its trace.
  if (!(error instanceof ValidationError)) throw error;
  process.stderr.write(`change-bridge: ${error.message}\n`);
  process.exitCode = 1;
}
