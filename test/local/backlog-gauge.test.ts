import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startDiskQueue } from '../../shared/local/disk-queue/disk-queue.ts';
import { SqsBacklogGauge } from '../../shared/local/queue-backlog-gauge.ts';
import type { SqsEmulator } from '../../shared/local/sqs-emulator.ts';
import { deliveryMessage } from '../../shared/webhooks/messages.ts';
import { SqsDeliveryQueue } from '../../shared/webhooks/queue.ts';

let queue: SqsEmulator | undefined;
let dir = '';
afterEach(async () => {
  await queue?.close();
  queue = undefined;
  await rm(dir, { recursive: true, force: true });
});

const message = (n: number) => deliveryMessage({ id: `d${n}`, subscriptionId: 's1' }, `c-${n}`);

// design.md, Backpressure: detection pauses while undelivered work passes the bound.
describe("the local run's backlog gauge", () => {
  it("counts deliveries deferred for their place in a slow endpoint's line, not delayed retries", async () => {
    dir = await mkdtemp(join(tmpdir(), 'gauge-'));
    queue = await startDiskQueue({ path: dir });
    const url = await queue.createQueue('dispatch');
    const deliveries = new SqsDeliveryQueue(queue.client, url);
    const gauge = new SqsBacklogGauge(queue.client, [url], 2);

    // Three retries waiting for their next attempt: not backlog (a dead endpoint's retries must
    // not stop detection for every other subscriber).
    // A backfill's retry among them keeps its lane, and is no backlog either.
    const retries = [1, 2, 3].map((n) => ({
      message: n === 3 ? { ...message(n), lane: 'bulk' as const } : message(n),
      delaySeconds: 60,
    }));
    expect(await deliveries.sendBatch(retries)).toEqual([]);
    expect(await gauge.depth()).toBe(0);

    // Three deferred for their turn at a slow endpoint: they would otherwise wait in its line.
    const inLine = [4, 5, 6].map((n) => ({
      message: { ...message(n), lane: 'live' as const },
      delaySeconds: 60,
      waitsInLine: true,
    }));
    expect(await deliveries.sendBatch(inLine)).toEqual([]);
    expect(await gauge.depth()).toBe(3);
    expect(await gauge.aboveBound()).toBe(true);
  });
});
