#!/usr/bin/env node
// Entry point of `npx change-bridge`: runs the CLI's TypeScript sources as one bundle (see
// cli-bundle.js), or through tsx's loader when the bundle cannot be built or written.
import { cliBundleUrl } from './cli-bundle.js';
import { holdEarlyStopSignal } from './early-stop-signal.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// A reader that stopped early (`change-bridge streams list | head -1`) is no failure: the rest
// of the output is dropped, the command ends as it would have (before, an unhandled EPIPE).
process.stdout.on('error', (error) => {
  if (error.code !== 'EPIPE') throw error;
});

async function loadCli() {
  try {
    return await import(await cliBundleUrl());
  } catch (error) {
    process.stderr.write(
      `change-bridge: running the sources through tsx (no bundle: ${error?.message ?? error})\n`,
    );
    const { register } = await import('tsx/esm/api');
    register();
    return import('../shared/cli/main.ts');
  }
}

const argv = process.argv.slice(2);
const releaseEarlyStopSignal = holdEarlyStopSignal(argv);
const { runCli } = await loadCli();
process.exitCode = await runCli(argv);
releaseEarlyStopSignal();
