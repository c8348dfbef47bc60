import { App } from 'aws-cdk-lib';
import { ValidationError } from '../shared/errors.ts';
import { createChangeBridgeApp } from './create-app.ts';

// The CDK CLI runs this file (cdk.json: `npx tsx infra/app.ts`); the app reads its
// stage from context and the environment, and adds cdk-nag checks to synthesis.
const app = new App();
try {
  createChangeBridgeApp(app, process.env);
  app.synth();
} catch (error) {
  // A bad setting (`-c pollRateMinutes=abc`, a misspelt key) is the user's to fix: one line
  // naming it, not a stack trace. Anything else is a bug and keeps its trace.
  if (!(error instanceof ValidationError)) throw error;
  process.stderr.write(`change-bridge: ${error.message}\n`);
  process.exitCode = 1;
}
