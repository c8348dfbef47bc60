import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { BackendsSchema } from './backfill/backends.ts';
import { startChild, stopChild } from './backfill/child.ts';
import { startBridgeChild } from './bridge-process.ts';
import { isMain, quietAwsSdkNotice } from './figures.ts';
import { startBenchReceiver } from './receiver.ts';

/** How often the walk asks `GET /backfill/{id}` and records what the command said last, in ms. */
const LOOK_EVERY_MS = 5_000;
const BIN = fileURLToPath(new URL('../bin/change-bridge.js', import.meta.url));

const JobLineSchema = z.object({
  id: z.string(),
  etaSeconds: z.number().nullable(),
  deliveryDone: z.boolean(),
  done: z.boolean(),
  recordsRead: z.number(),
  webhooksDelivered: z.number(),
  estimate: z.object({
    secondsLeft: z.number().nullable(),
    readSecondsLeft: z.number().nullable(),
    deliverySecondsLeft: z.number().nullable(),
  }),
});
const ViewSchema = z.object({
  etaSeconds: z.number().nullable(),
  readEtaSeconds: z.number().nullable(),
  deliveryEtaSeconds: z.number().nullable(),
  recordsRead: z.number(),
  webhooksDelivered: z.number(),
  done: z.boolean(),
});

interface Look {
  second: number;
  command: number | null;
  api: number | null;
  recordsRead: number;
  delivered: number;
  readDone: boolean;
}

/**
 * Walks a 100,000-customer `backfill --emit` as a user does (`change-bridge start` against the
 * simulator, one receiver): every 5 s, what the command's `--json` line (its bar's time left)
 * and `GET /backfill/{id}` say is left, against the time actually left, found at the end.
 * Prints one row per look; `BENCH_WALK_OUT` names a JSON file for the rows.
 */
export async function run(): Promise<void> {
  quietAwsSdkNotice();
  const backends = startChild('backfill/backends.ts', { BENCH_RATE_LIMIT: 'off' });
  const receiver = await startBenchReceiver(false);
  try {
    const sim = BackendsSchema.parse(JSON.parse(await backends.firstLine));
    const bridge = await startBridgeChild({
      env: {
        BRIDGE_MAX_BACKLOG: '',
        CONNECTOR_BASE_URL: sim.connectorUrl,
        CONNECTOR_CLIENT_TOKEN: sim.clientToken,
        CONNECTOR_ACCESS_TOKEN: sim.accessToken,
        CONNECTOR_RATE_LIMIT: 'off',
        POLL_HISTORY_START: '400d',
        POLL_ENTITIES: 'customer',
        INITIAL_SYNC: 'baseline',
      },
    });
    try {
      await bridge.caughtUp(300_000);
      await bridge.call('POST', '/subscriptions', { url: receiver.url, description: 'walk' });
      const startedAt = Date.now();
      const command = spawn(
        process.execPath,
        [BIN, 'backfill', '--entities', 'customer', '--emit', '--json', '--api', bridge.api],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let last: z.infer<typeof JobLineSchema> | undefined;
      // Every sample the command read, with when: replayed through an estimator, offline.
      const lines: { at: number; job: unknown }[] = [];
      createInterface({ input: command.stdout! }).on('line', (line) => {
        const job: unknown = JSON.parse(line);
        lines.push({ at: Date.now(), job });
        const parsed = JobLineSchema.safeParse(job);
        if (parsed.success) last = parsed.data;
      });
      const ended = new Promise<void>((resolve) => command.once('exit', () => resolve()));
      const looks: Look[] = [];
      let finished = false;
      void ended.then(() => {
        finished = true;
      });
      while (!finished) {
        await new Promise((resolve) => setTimeout(resolve, LOOK_EVERY_MS));
        if (finished || last === undefined) continue;
        const view = ViewSchema.safeParse(
          await bridge.call('GET', `/backfill/${last.id}`).catch(() => null),
        );
        looks.push({
          second: Math.round((Date.now() - startedAt) / 1000),
          command: last.estimate.secondsLeft,
          api: view.success ? view.data.etaSeconds : null,
          recordsRead: last.recordsRead,
          delivered: last.webhooksDelivered,
          readDone: last.done,
        });
      }
      await ended;
      const total = (Date.now() - startedAt) / 1000;
      console.log(`walk: ${total.toFixed(0)} s from the command's start to its end`);
      console.log('second  truth  command (x)   api (x)   read  delivered');
      const ratio = (value: number | null, truth: number) =>
        value === null ? 'null' : `${value} (${(value / Math.max(1, truth)).toFixed(2)})`;
      for (const look of looks) {
        const truth = Math.round(total - look.second);
        console.log(
          `${look.second}\t${truth}\t${ratio(look.command, truth)}\t${ratio(look.api, truth)}\t${look.recordsRead}\t${look.delivered}${look.readDone ? '\tread done' : ''}`,
        );
      }
      if (process.env.BENCH_WALK_OUT) {
        await writeFile(
          process.env.BENCH_WALK_OUT,
          JSON.stringify({ startedAt, total, looks, lines }),
        );
      }
    } finally {
      await bridge.stop();
    }
  } finally {
    await receiver.close();
    await stopChild(backends);
  }
}

if (isMain(import.meta.url)) await run();
