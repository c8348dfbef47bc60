import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveFromDynalite } from '../../shared/local/dynalite-require.ts';
import { jsonReporter } from '../../shared/local/reporter.ts';
import { startBridge } from '../../shared/local/runtime.ts';
import { connectorEnvOf } from '../../shared/simulator/connector-env.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { testLocalConfig } from '../support/local-config.ts';
import { waitFor } from '../support/wait-for.ts';

interface WritableLevel {
  _put(...args: unknown[]): Promise<void>;
  _batch(...args: unknown[]): Promise<void>;
}

/** dynalite's copy of classic-level, whose writes the test makes fail as on a full disk. */
const { ClassicLevel } = createRequire(resolveFromDynalite('level'))('classic-level') as {
  ClassicLevel: { prototype: WritableLevel };
};
const { _put: put, _batch: batch } = ClassicLevel.prototype;

interface Line {
  level: string;
  message: string;
  streamId?: string;
}

describe('change-bridge start while its disk is full', () => {
  let sim: RunningSimulator;
  let dataDir: string;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 4, customers: 50, rateLimit: false });
    dataDir = await mkdtemp(join(tmpdir(), 'cb-store-full-'));
  });

  afterAll(async () => {
    ClassicLevel.prototype._put = put;
    ClassicLevel.prototype._batch = batch;
    await sim.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('says once per backoff step which stream the store refused, and when it stores again', async () => {
    const lines: Line[] = [];
    // Polled every 500 ms: the loop ticks every 125 ms.
    const bridge = await startBridge(testLocalConfig(dataDir, 500), {
      env: { ...connectorEnvOf(sim), POLL_ENTITIES: 'customer', POLL_HISTORY_START: '30d' },
      reporter: jsonReporter({
        write: (text) => {
          for (const line of text.split('\n')) lines.push(JSON.parse(line) as Line);
        },
        now: () => Date.now(),
      }),
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const refuse = async () => {
        throw new Error(`IO error: ${dataDir}/dynamodb/000003.log: No space left on device`);
      };
      ClassicLevel.prototype._put = refuse;
      ClassicLevel.prototype._batch = refuse;
      const from = lines.length;
      sim.controls.clearRequestLog();
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      const requests = sim.controls.requestLog().length;
      const full = lines.slice(from);
      // Tries at 0, 0.5, 1.5 and 3.5 s (the interval doubled per failure): a line each at most,
      // where every 125 ms tick printed one.
      const held = full.filter((line) => line.streamId === 'local:customer');
      expect(full.filter((line) => /planner tick/.test(line.message))).toEqual([]);
      expect(held.length).toBeGreaterThanOrEqual(1);
      expect(held.length).toBeLessThanOrEqual(4);
      // The budget's grants are stored in the same table: a grant it cannot store is no request.
      expect(requests).toBeLessThanOrEqual(held.length);
      for (const line of held) {
        expect(line.level).toBe('warn');
        expect(line.message).toMatch(/^local:customer: the local store refused a write/);
      }
      ClassicLevel.prototype._put = put;
      ClassicLevel.prototype._batch = batch;
      const resumed = await waitFor(
        () =>
          lines
            .slice(from)
            .find((line) => /^local:customer: polled and stored again/.test(line.message)),
        15_000,
        'the stream to resume',
      );
      expect(resumed.level).toBe('info');
    } finally {
      ClassicLevel.prototype._put = put;
      ClassicLevel.prototype._batch = batch;
      await bridge.stop();
    }
  }, 60_000);
});
