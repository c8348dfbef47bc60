import { spawn } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
/** What `import { ChangeBridge } from 'change-bridge/infra'` loads of the package. */
const SHIPPED = ['package.json', 'infra', 'shared', 'functions'];
/** devDependencies of this repository that a CDK app embedding the construct need not have. */
const DEV_ONLY = new Set(['cdk-nag']);

const consumer = mkdtempSync(join(tmpdir(), 'change-bridge-consumer-'));
afterAll(() => rmSync(consumer, { recursive: true, force: true }));

/**
 * A CDK app of a user's own, as README's "To embed the bridge in your own CDK app" has it:
 * change-bridge installed under node_modules beside aws-cdk-lib, constructs and tsx, but none
 * of this repository's devDependencies in `DEV_ONLY`.
 */
function createConsumerApp(): void {
  // A project of its own: its lock file is where the construct bundles the functions from.
  writeFileSync(join(consumer, 'package.json'), '{ "name": "my-cdk-app", "type": "module" }\n');
  writeFileSync(
    join(consumer, 'package-lock.json'),
    '{ "name": "my-cdk-app", "lockfileVersion": 3 }\n',
  );
  const modules = join(consumer, 'node_modules');
  const installed = join(modules, 'change-bridge');
  mkdirSync(installed, { recursive: true });
  for (const entry of SHIPPED)
    cpSync(join(REPO, entry), join(installed, entry), { recursive: true });
  const repoModules = join(REPO, 'node_modules');
  for (const name of readdirSync(repoModules)) {
    if (DEV_ONLY.has(name) || name === 'change-bridge') continue;
    symlinkSync(join(repoModules, name), join(modules, name));
  }
}

/** Runs `script` as an ES module in the consumer app, with tsx as its TypeScript loader. */
function runInConsumer(script: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      {
        cwd: consumer,
        // Without aws-cdk-lib's built-in CloudFormation validation (warnings only, see
        // synth-fixture.ts): its rule engine took about 6 of the child's 9 s of CPU, and what
        // this test asks is whether the package loads without the devDependencies.
        env: { ...process.env, CDK_VALIDATION: 'false' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 25_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('change-bridge/infra in a CDK app of its own', () => {
  it('builds the ChangeBridge construct without the repository devDependencies such as cdk-nag', async () => {
    createConsumerApp();
    const run = await runInConsumer(
      [
        "import { App, Stack } from 'aws-cdk-lib';",
        "import { ChangeBridge } from 'change-bridge/infra';",
        "const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });",
        "const stack = new Stack(app, 'Mine');",
        "new ChangeBridge(stack, 'Bridge', { connections: [{ id: 'main' }] });",
        "const outputs = app.synth().getStackByName('Mine').template.Outputs;",
        'console.log(JSON.stringify(Object.keys(outputs)));',
      ].join('\n'),
    );

    expect(run.output).not.toContain('ERR_MODULE_NOT_FOUND');
    // The whole run in the diff on failure: its output says what went wrong.
    expect(run).toEqual({
      code: 0,
      output: expect.stringMatching(/"BridgeStateEventBusName[0-9A-F]{8}"/),
    });
  }, 30_000);
});
