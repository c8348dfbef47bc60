import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const APP_PATH = fileURLToPath(new URL('../../infra/app.ts', import.meta.url));
/** Fails the child's import of aws-cdk-lib's constructs or cdk-nag, naming it on stderr. */
const REFUSE_CDK_CONSTRUCTS = new URL('../support/refuse-cdk-constructs.mjs', import.meta.url).href;
const outdir = mkdtempSync(join(tmpdir(), 'change-bridge-app-entry-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

interface AppRun {
  code: number | null;
  stderr: string;
}

/**
 * Runs infra/app.ts as the CDK CLI does, with `context` passed the way the CLI passes `-c`, and
 * with any import of aws-cdk-lib's constructs or cdk-nag failing (refuse-cdk-constructs.mjs).
 */
function runApp(context: Record<string, unknown>): Promise<AppRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--import', REFUSE_CDK_CONSTRUCTS, APP_PATH],
      {
        env: { ...process.env, CDK_CONTEXT_JSON: JSON.stringify(context), CDK_OUTDIR: outdir },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 25_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe('infra/app.ts (the CDK app entry)', () => {
  it.each([
    [{ pollRateMinutes: 'abc' }, /pollRateMinutes: use a whole number of minutes/],
    [{ pollRateMinute: '5' }, /pollRateMinute: unknown key/],
    [{ connections: 'Not OK' }, /connections\[0\]\.id: use 1-40 lowercase letters/],
  ])(
    'prints one line naming the bad setting %j and exits 1, with no stack trace, before loading aws-cdk-lib',
    async (context, message) => {
      const { code, stderr } = await runApp(context);
      expect(stderr).not.toMatch(/refuse-cdk-constructs: /);
      expect(code).toBe(1);
      expect(stderr).toMatch(message);
      expect(stderr.trim().split('\n')).toHaveLength(1);
      expect(stderr).not.toMatch(/^\s+at /m);
      expect(stderr).not.toMatch(/ZodError|"code":/);
    },
  );
});
