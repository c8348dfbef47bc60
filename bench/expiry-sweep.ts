import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { BatchWriteItemCommand, type WriteRequest } from '@aws-sdk/client-dynamodb';
import { startLocalDynamoDb } from '../shared/local/dynamodb.ts';
import { removeExpiredItems } from '../shared/local/expired-items.ts';
import { createStateTable } from '../shared/state/dynamodb-table.ts';
import { formatNumber, isMain } from './figures.ts';

/** Items in the store: half with a `ttl`, one in twenty of all past it. */
const ITEMS = Number(process.env.BENCH_SWEEP_ITEMS ?? 200_000);
const NOW_SECONDS = 1_800_000_000;
const TABLE = 'expiry-bench';
/** BatchWriteItem takes 25 requests at most. */
const BATCH = 25;

/**
 * A part benchmark, not one of design.md's figures and not in `npm run bench`: the local run's
 * expiry sweep (removeExpiredItems, default pages and pauses) over an on-disk dynalite store of
 * ITEMS items of ~600 bytes, in this process. Prints its wall time, CPU and the event loop's
 * longest delay, the cost a sweep adds to a running `start`.
 */
export async function run(): Promise<void> {
  const path = join(tmpdir(), `bench-expiry-${process.pid}`);
  const dynamo = await startLocalDynamoDb({ path, listen: false });
  try {
    await createStateTable(dynamo.client, TABLE);
    for (let first = 0; first < ITEMS; first += BATCH) {
      const requests: WriteRequest[] = [];
      for (let i = first; i < Math.min(first + BATCH, ITEMS); i++) {
        const ttl = i % 20 === 0 ? NOW_SECONDS - 5 : NOW_SECONDS + 1000;
        requests.push({
          PutRequest: {
            Item: {
              pk: { S: `P#${i % 100}` },
              sk: { S: `S#${i}` },
              text: { S: 'x'.repeat(600) },
              ...(i % 2 === 0 ? { ttl: { N: String(ttl) } } : {}),
            },
          },
        });
      }
      await dynamo.client.send(new BatchWriteItemCommand({ RequestItems: { [TABLE]: requests } }));
    }
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const cpuBefore = process.cpuUsage();
    const startedAt = performance.now();
    const removed = await removeExpiredItems({
      client: dynamo.client,
      tableName: TABLE,
      nowSeconds: () => NOW_SECONDS,
    });
    const wallMs = performance.now() - startedAt;
    const cpu = process.cpuUsage(cpuBefore);
    delay.disable();
    console.log(
      `expiry sweep (part benchmark, in process): ${formatNumber(ITEMS)} items, ${formatNumber(removed)} removed in ` +
        `${(wallMs / 1000).toFixed(1)} s, ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s of CPU; ` +
        `event loop delay max ${Math.round(delay.max / 1e6)} ms, p99 ${Math.round(delay.percentile(99) / 1e6)} ms`,
    );
  } finally {
    await dynamo.close();
    await rm(path, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) await run();
