import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliHarness } from '../admin/support/cli.ts';
import { BIN_PATH } from '../support/run-bin.ts';

let cli: Awaited<ReturnType<typeof startCliHarness>>;
beforeAll(async () => {
  cli = await startCliHarness();
});
afterAll(async () => {
  await cli?.close();
});

/**
 * `change-bridge backfill ARGS` as a child process against the harness's admin API, sent
 * `signal` once its first progress line names the job: its exit code, output and the job's id.
 */
async function interruptedBackfill(args: string[], signal: NodeJS.Signals) {
  const child = spawn(process.execPath, [BIN_PATH, 'backfill', ...args, '--api', cli.server.url], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let jobId: string | undefined;
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
    const named = /Backfill (bf_\w+)/.exec(stdout)?.[1];
    if (named !== undefined && jobId === undefined) {
      jobId = named;
      child.kill(signal);
    }
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stdout, stderr, jobId };
}

describe('change-bridge backfill interrupted (Ctrl-C)', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    'on %s stops following, says the job runs on and how to follow it again, and exits %i',
    async (signal, exitCode) => {
      // The harness's bridge polls nothing: the job stays reading until the command is stopped.
      const run = await interruptedBackfill(['--entities', 'customer'], signal);
      expect(run.jobId).toMatch(/^bf_/);
      expect(run.code).toBe(exitCode);
      expect(run.stderr).toContain(`stopped following on ${signal}`);
      expect(run.stderr).toContain(`backfill ${run.jobId} keeps running in the bridge`);
      expect(run.stderr).toContain(`change-bridge backfill --follow ${run.jobId}`);
      // The job itself was not touched: the bridge still reads it.
      const listed = await cli.run(['backfill', 'list', '--json']);
      expect(listed.stdout).toContain(run.jobId as string);
    },
  );
});
