import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { RequestLogEntrySchema } from '../shared/simulator/request-log.ts';
import { groupCpuSeconds, sampleGroupPeakRss } from './bridge-process.ts';

const BIN = fileURLToPath(new URL('../bin/change-bridge.js', import.meta.url));
const RSS_SAMPLE_MS = 500;

const TokensFileSchema = z.object({
  url: z.string(),
  clientToken: z.string(),
  enterprises: z.array(
    z.object({ enterpriseId: z.string(), name: z.string(), accessToken: z.string() }),
  ),
});
const WorldSchema = z.object({
  products: z.array(z.object({ id: z.string(), enterpriseId: z.string() })),
  enterprises: z.array(z.object({ id: z.string(), timeZone: z.string() })),
});
const RequestsSchema = z.object({ requests: z.array(RequestLogEntrySchema) });

/** `change-bridge simulator` in a process group of its own, so its cost is measured apart. */
export interface SimulatorChild {
  url: string;
  clientToken: string;
  enterprises: z.infer<typeof TokensFileSchema>['enterprises'];
  /** Products and time zones per enterprise (`GET /_sim/world`). */
  world(): Promise<z.infer<typeof WorldSchema>>;
  /** Every answered `/api/` request so far (`GET /_sim/requests`). */
  requests(): Promise<z.infer<typeof RequestsSchema>['requests']>;
  pid: number;
  /** CPU seconds of its process group so far. */
  cpuSeconds(): Promise<number>;
  /** Highest RSS of its process group, sampled every 500 ms. */
  peakRss(): number;
  stop(): Promise<void>;
}

/**
 * `BENCH_SIMULATOR_NODE_ARGS`: node flags for the simulator child alone, space-separated, to
 * profile it (`--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
function simulatorNodeArgs(): string[] {
  return (process.env.BENCH_SIMULATOR_NODE_ARGS ?? '').split(' ').filter(Boolean);
}

/**
 * Spawns `change-bridge simulator --port 0 --enterprises N --activity A --tokens-file …`
 * detached and resolves once it listens, with every enterprise's AccessToken.
 * @example const sim = await startSimulatorChild({ enterprises: 10, activity: 1 }); await sim.stop();
 */
export async function startSimulatorChild(options: {
  enterprises: number;
  activity: number;
  /** Every enterprise a chain of its own (`--chain-per-enterprise`). */
  chainPerEnterprise?: boolean;
}): Promise<SimulatorChild> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-sim-'));
  const tokensFile = join(dir, 'tokens.json');
  const child = spawn(
    process.execPath,
    [
      ...simulatorNodeArgs(),
      BIN,
      'simulator',
      '--port',
      '0',
      '--enterprises',
      String(options.enterprises),
      '--activity',
      String(options.activity),
      '--tokens-file',
      tokensFile,
      ...(options.chainPerEnterprise ? ['--chain-per-enterprise'] : []),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'], detached: true },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const listening = new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.includes('listening on')) resolve();
    });
    void exited.then(() => reject(new Error('the simulator exited before it listened')));
  });
  const rss = sampleGroupPeakRss(child.pid!, RSS_SAMPLE_MS);
  const stop = async () => {
    rss.stop();
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await listening;
    const tokens = TokensFileSchema.parse(JSON.parse(await readFile(tokensFile, 'utf8')));
    const get = async (path: string) => (await fetch(`${tokens.url}/_sim/${path}`)).json();
    return {
      url: tokens.url,
      clientToken: tokens.clientToken,
      enterprises: tokens.enterprises,
      world: async () => WorldSchema.parse(await get('world')),
      requests: async () => RequestsSchema.parse(await get('requests')).requests,
      pid: child.pid!,
      cpuSeconds: () => groupCpuSeconds(child.pid!),
      peakRss: () => rss.peak(),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
