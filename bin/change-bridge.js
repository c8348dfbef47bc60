#!/usr/bin/env node
// Entry point of `npx change-bridge`: runs the TypeScript sources through tsx's loader.
import { register } from 'tsx/esm/api';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
register();
const { runCli } = await import('../shared/cli/main.ts');
process.exitCode = await runCli(process.argv.slice(2));
