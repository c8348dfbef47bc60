import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { SIM_DEFAULT_TOKENS } from '../../shared/simulator/simulator.ts';
import { BIN_PATH } from '../support/run-bin.ts';

describe('the simulator with a slow answer pending', () => {
  it('stops on SIGINT at once, not when the delay ends', async () => {
    const child = spawn(
      process.execPath,
      [BIN_PATH, 'simulator', '--port', '0', '--activity', '0'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      let stdout = '';
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        stdout += chunk;
      });
      const exited = once(child, 'exit');
      while (!/listening on (http:\/\/\S+)/.test(stdout)) {
        if (child.exitCode !== null) throw new Error(`simulator exited: ${stdout}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const url = /listening on (http:\/\/\S+)/.exec(stdout)![1]!;
      const faults = await fetch(`${url}/_sim/faults`, {
        method: 'POST',
        body: JSON.stringify({ script: ['slow'], slowMs: 600_000 }),
      });
      expect(faults.status).toBe(200);
      // The client gives up on the slow answer; the simulator is then told to stop.
      const slow = await fetch(`${url}/api/connector/v1/taxEnvironments/getAll`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          ClientToken: SIM_DEFAULT_TOKENS.clientToken,
          AccessToken: SIM_DEFAULT_TOKENS.accessToken,
          Client: 'test',
        }),
        signal: AbortSignal.timeout(300),
      }).catch((error: unknown) => error);
      expect(slow).toBeInstanceOf(Error);
      const stoppedAt = Date.now();
      child.kill('SIGINT');
      // Before, the process stayed up until the 10 minutes of the delay were over.
      const [code] = await Promise.race([
        exited,
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error('still running 10 s after SIGINT')), 10_000),
        ),
      ]);
      expect(code).toBe(0);
      expect(Date.now() - stoppedAt).toBeLessThan(10_000);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 40_000);
});
