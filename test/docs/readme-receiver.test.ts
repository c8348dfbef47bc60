import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import { freePort } from '../support/free-port.ts';
import { waitFor } from '../support/wait-for.ts';
import { changeEvent, createHarness, envelope, eventIdOf } from '../webhooks/support/harness.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const SECTION = '## Verifying a webhook in your receiver';
/** Where the README's sample listens; the test moves it to a free port, nothing else. */
const SAMPLE_LISTEN = ".listen(9000, '127.0.0.1')";

/** The TypeScript receiver the README shows, exactly as written. */
async function readmeReceiverSample(): Promise<string> {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf(SECTION));
  const sample = /```ts\n([\s\S]*?)\n```/.exec(section)?.[1];
  if (!sample) throw new Error(`no ts sample under "${SECTION}"`);
  return sample;
}

/** Whether something accepts connections on 127.0.0.1:`port` now. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** Runs the sample with `npx tsx receiver.ts`'s loader, in a directory of its own, as a user would. */
async function runSample(
  port: number,
  secret: string,
): Promise<ChildProcess & { output(): string }> {
  const sample = await readmeReceiverSample();
  expect(sample).toContain(SAMPLE_LISTEN);
  const dir = await mkdtemp(join(tmpdir(), 'readme-receiver-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  await writeFile(
    join(dir, 'receiver.ts'),
    sample.replace(SAMPLE_LISTEN, `.listen(${port}, '127.0.0.1')`),
  );
  const child = spawn(
    process.execPath,
    [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'receiver.ts'],
    {
      cwd: dir,
      env: { ...process.env, WEBHOOK_SECRET: secret },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  cleanup.push(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    process.kill(-child.pid!, 'SIGKILL');
    await exited;
  });
  await waitFor(() => accepts(port), 20_000, `the README receiver on port ${port}\n${output}`, 100);
  return Object.assign(child, { output: () => output });
}

describe("the README's receiver sample", () => {
  it('verifies real deliveries with the subscription secret (204) and refuses another secret (401, retried)', async () => {
    const harness = createHarness({ clock: systemClock });
    cleanup.push(() => harness.sender.close());
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/hook`;
    const ours = await harness.service.createSubscription({ url });
    const another = await harness.service.createSubscription({ url });
    const sample = await runSample(port, ours.secret);

    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(1))));
    await harness.drainVisible();

    const [delivered] = await harness.service.listDeliveries({
      subscriptionId: ours.subscription.id,
    });
    expect(delivered?.delivery).toMatchObject({ status: 'delivered', lastStatus: 204 });
    const [refused] = await harness.service.listDeliveries({
      subscriptionId: another.subscription.id,
    });
    expect(refused?.delivery).toMatchObject({ status: 'pending', lastStatus: 401 });
    // "it prints nothing"
    expect(sample.output()).toBe('');
  }, 40_000);
});
