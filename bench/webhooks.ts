import { Agent, request } from 'undici';
import { systemClock, systemRandom } from '../shared/clock.ts';
import { processDispatchBatch } from '../shared/webhooks/dispatcher.ts';
import { createDispatcherDeps } from '../shared/webhooks/dispatcher-deps.ts';
import { UndiciWebhookSender } from '../shared/webhooks/http-sender.ts';
import { MemoryWebhookStore } from '../shared/webhooks/memory-store.ts';
import { MemoryOperationalEventSink } from '../shared/webhooks/operational-events.ts';
import { MemoryDeliveryQueue } from '../shared/webhooks/queue.ts';
import { createWebhookService } from '../shared/webhooks/service.ts';
import { systemRandomBytes, webhookHeaders } from '../shared/webhooks/signing.ts';
import type { HostResolver } from '../shared/webhooks/url-policy.ts';
import { formatNumber, isMain, recordFigure } from './figures.ts';
import { type BenchReceiver, startBenchReceiver } from './receiver.ts';
import { eventBridgeEnvelope, sampleCustomerEvent } from './sample-event.ts';

const EVENTS = 10_000;
const WARMUP_EVENTS = 200;
/** Batches in flight at once (dispatcher) = POST loops in flight at once (baseline). */
const CONCURRENCY = 8;
/** The dispatch event source mapping's batch size (infra/runtime.ts). */
const BATCH_SIZE = 10;
const loopback: HostResolver = async () => [{ address: '127.0.0.1', family: 4 }];

/**
 * Deliveries per second through the dispatcher core (fan-out with the first signed attempt
 * made inline, retries through delivery messages, on the in-memory store and queue, the real
 * undici sender) with CONCURRENCY batches in flight, until `count` deliveries are verified
 * at the receiver.
 */
async function dispatcherRate(receiver: BenchReceiver, first: number, count: number) {
  const clock = systemClock;
  const store = new MemoryWebhookStore();
  const queue = new MemoryDeliveryQueue(clock);
  const sender = new UndiciWebhookSender({
    policy: { allowPrivate: true },
    resolve: loopback,
    clock,
    connectionsPerOrigin: CONCURRENCY,
  });
  const deps = createDispatcherDeps({
    store,
    queue,
    sender,
    sink: new MemoryOperationalEventSink(),
    clock,
    random: systemRandom,
    logger: { warn: () => {}, error: () => {} },
  });
  const service = createWebhookService({
    ...deps,
    policy: { allowPrivate: true },
    resolve: loopback,
    randomBytes: systemRandomBytes,
  });
  const { secret } = await service.createSubscription({ url: receiver.url });
  receiver.setSecret(secret);
  for (let n = first; n < first + count; n++)
    queue.sendRaw(eventBridgeEnvelope(sampleCustomerEvent(n)));
  const verifiedBefore = receiver.received - receiver.rejected;
  let inFlight = 0;
  let retryBatches = 0;
  // Batches may put retry messages back on the queue: a worker stops only when the queue is
  // empty and no batch is in flight.
  const worker = async () => {
    for (;;) {
      const batch = queue.receive(BATCH_SIZE);
      if (batch.length === 0) {
        if (queue.size === 0 && inFlight === 0) return;
        await new Promise((resolve) => setImmediate(resolve));
        continue;
      }
      inFlight += 1;
      if (batch[0]!.body.includes('"kind":"delivery"')) retryBatches += 1;
      await processDispatchBatch(batch, deps);
      inFlight -= 1;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  await sender.close();
  const delivered = receiver.received - receiver.rejected - verifiedBefore;
  return { delivered, perSecond: delivered / seconds, retryBatches };
}

/** The same signed body POSTed `count` times by CONCURRENCY keep-alive loops with undici. */
async function barePostRate(receiver: BenchReceiver, count: number) {
  const agent = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 30_000 });
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  receiver.setSecret(secret);
  const body = JSON.stringify(sampleCustomerEvent(0));
  const headers = {
    'content-type': 'application/json',
    ...webhookHeaders({
      id: 'evt_00000000000000000000000000',
      timestampSeconds: Math.floor(Date.now() / 1000),
      body,
      secrets: [secret],
    }),
  };
  let next = 0;
  const receivedBefore = receiver.received - receiver.rejected;
  const started = performance.now();
  const worker = async () => {
    while (next < count) {
      next += 1;
      const response = await request(receiver.url, {
        method: 'POST',
        headers,
        body,
        dispatcher: agent,
      });
      await response.body.dump();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  await agent.close();
  const delivered = receiver.received - receiver.rejected - receivedBefore;
  return { delivered, perSecond: delivered / seconds };
}

/**
 * Webhook deliveries per second through the dispatcher ÷ a bare keep-alive POST loop (undici,
 * same concurrency) to the same local receiver, which verifies every request with
 * `standardwebhooks` in both runs.
 */
export async function run(): Promise<void> {
  console.log(`webhooks (dispatcher vs bare POST loop, concurrency ${CONCURRENCY})`);
  const receiver = await startBenchReceiver();
  try {
    await barePostRate(receiver, WARMUP_EVENTS);
    await dispatcherRate(receiver, 1_000_000, WARMUP_EVENTS);
    const bare = await barePostRate(receiver, EVENTS);
    const dispatcher = await dispatcherRate(receiver, 1, EVENTS);
    const ratio = dispatcher.perSecond / bare.perSecond;
    console.log(
      `  bare POST loop: ${formatNumber(bare.perSecond)}/s (${bare.delivered} verified); ` +
        `dispatcher: ${formatNumber(dispatcher.perSecond)}/s (${dispatcher.delivered} verified, fan-out included: ` +
        `first attempts inline, ${dispatcher.retryBatches} batches of retry messages)`,
    );
    recordFigure({
      figure: 'Webhook deliveries/s, dispatcher / bare POST loop',
      measured: `${ratio.toFixed(2)} (${formatNumber(dispatcher.perSecond)} / ${formatNumber(bare.perSecond)} per s)`,
      target: '>= 0.8',
      met: ratio >= 0.8 && dispatcher.delivered === EVENTS,
    });
  } finally {
    await receiver.close();
  }
}

if (isMain(import.meta.url)) await run();
