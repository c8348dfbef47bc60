import { run as runBackfill } from './backfill.ts';
import { run as runBackfillStart } from './backfill-start.ts';
import { run as runCost } from './cost.ts';
import { figuresTable, quietAwsSdkNotice } from './figures.ts';
import { run as runLatency } from './latency.ts';
import { run as runLatencyBackfill } from './latency-backfill.ts';
import { run as runPollCost } from './poll-cost.ts';
import { run as runScaleModel } from './scale-model.ts';
import { run as runSimulator } from './simulator.ts';
import { run as runSlowEndpoint } from './slow-endpoint.ts';
import { run as runWebhooks } from './webhooks.ts';

/** `npm run bench`: every benchmark in sequence, then the table of figures against design.md. */
async function main(): Promise<void> {
  quietAwsSdkNotice();
  const started = performance.now();
  for (const [name, run] of [
    ['simulator', runSimulator],
    ['poll-cost', runPollCost],
    ['latency', runLatency],
    ['latency beside a backfill of the same entities', runLatencyBackfill],
    ['webhooks', runWebhooks],
    ['slow endpoint', runSlowEndpoint],
    ['cost', runCost],
    ['scale-model', runScaleModel],
    ['backfill (change-bridge start)', runBackfillStart],
    ['backfill (part: the poller alone)', runBackfill],
  ] as const) {
    console.log(`\n=== ${name} ===`);
    await run();
  }
  console.log(
    `\nPerformance targets (design.md), measured on this machine in ${((performance.now() - started) / 60_000).toFixed(1)} min:\n`,
  );
  console.log(figuresTable());
}

await main();
