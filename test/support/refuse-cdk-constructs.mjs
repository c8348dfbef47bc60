// Preload (`node --import`) for tests that a program refuses its settings before it loads CDK's
// constructs: registers refuse-cdk-constructs-hooks.mjs, which fails any import of aws-cdk-lib
// (App, stacks, constructs) or cdk-nag with a message naming it.
import { register } from 'node:module';

register('./refuse-cdk-constructs-hooks.mjs', import.meta.url);
