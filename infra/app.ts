import { App } from 'aws-cdk-lib';
import { createChangeBridgeApp } from './create-app.ts';

// The CDK CLI runs this file (cdk.json: `npx tsx infra/app.ts`); the app reads its
// stage from context and the environment, and adds cdk-nag checks to synthesis.
const app = new App();
createChangeBridgeApp(app, process.env);
app.synth();
