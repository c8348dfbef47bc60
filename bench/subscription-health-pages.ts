import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  encodeSubscriptionHealthCursor,
  SubscriptionHealthCursorSchema,
} from '../shared/admin/subscription-health-cursor.ts';
import { ManualClock, seededRandom } from '../shared/clock.ts';
import type { HostResolver } from '../shared/dns/system-resolver.ts';
import { STORE_FOLDER } from '../shared/local/data-dir.ts';
import { startLocalDynamoDb } from '../shared/local/dynamodb.ts';
import { LOCAL_TABLE_NAME } from '../shared/local/runtime.ts';
import { createStateTable } from '../shared/state/dynamodb-table.ts';
import { fanOutDeliveryId } from '../shared/webhooks/delivered-at-once.ts';
import { createDispatcherDeps } from '../shared/webhooks/dispatcher-deps.ts';
import { DynamoDbWebhookStore } from '../shared/webhooks/dynamodb-store.ts';
import { UndiciWebhookSender } from '../shared/webhooks/http-sender.ts';
import { MemoryOperationalEventSink } from '../shared/webhooks/operational-events.ts';
import { MemoryDeliveryQueue } from '../shared/webhooks/queue.ts';
import { createWebhookService } from '../shared/webhooks/service.ts';
import type { DeliveredAtOnce, Delivery, DeliveryRecord } from '../shared/webhooks/store.ts';
import { startBridgeChild } from './bridge-process.ts';

const resolve: HostResolver = async () => [{ address: '127.0.0.1', family: 4 }];

/*
 * GET /subscriptions/health page after page, as the console reads it, on the store of
 * `change-bridge start` (dynalite in process): `--subscriptions` subscriptions with `--deliveries`
 * deliveries each. `--shape shared`: every event fans out to every subscription (events ['*']);
 * `own`: each subscription has events of its own. The subscriptions are disabled, so the events
 * a running bridge detects go to none of them. Prints the time of each page and the total, and
 * with `--via-start` how long `start` took to answer on that store (its recovery of pending
 * deliveries reads every subscription's deliveries first).
 * @example npx tsx bench/subscription-health-pages.ts --subscriptions 2000 --via-start
 */
const { values: flags } = parseArgs({
  options: {
    subscriptions: { type: 'string', default: '2000' },
    deliveries: { type: 'string', default: '50' },
    shape: { type: 'string', default: 'shared' },
    limit: { type: 'string', default: '200' },
    /** A file to write the CPU profile of the reads to (not of the seeding). */
    profile: { type: 'string' },
    /**
     * Seed the store of a data dir and read the pages from `change-bridge start` on it, over
     * HTTP (the user's path); without it, from the webhook service on an in-memory dynalite.
     */
    'via-start': { type: 'boolean', default: false },
  },
});
const SUBSCRIPTIONS = Number(flags.subscriptions);
const DELIVERIES = Number(flags.deliveries);
const START_MS = Date.UTC(2026, 0, 1);

const clock = new ManualClock(START_MS);
const dataDir = flags['via-start'] ? await mkdtemp(join(tmpdir(), 'bench-health-')) : undefined;
const dynamo = await startLocalDynamoDb({
  listen: false,
  ...(dataDir ? { path: join(dataDir, STORE_FOLDER) } : {}),
});
const tableName = dataDir ? LOCAL_TABLE_NAME : 'health-bench';
await createStateTable(dynamo.client, tableName);
const store = new DynamoDbWebhookStore({ client: dynamo.client, tableName, clock });
const ids = Array.from({ length: SUBSCRIPTIONS }, (_, n) => `sub_${String(n).padStart(5, '0')}`);
for (const [n, id] of ids.entries()) {
  await store.putSubscription({
    id,
    url: `https://hotel-${n}.example/hook`,
    events: ['*'],
    // Disabled: the running bridge's own events go to none of them (their health reads the same).
    enabled: false,
    createdAt: new Date(START_MS - 10_000_000 + n).toISOString(),
    updatedAt: new Date(START_MS).toISOString(),
    secret: 'whsec_c2VjcmV0',
  });
}
/**
 * Event `eventId` fanned out to `subscriptionIds` as the dispatcher stores it: each tenth
 * delivery retrying (an item of its own, pending), the others delivered at once (on the event's item).
 */
async function fanOut(eventId: string, at: number, subscriptionIds: readonly string[]) {
  const deliveries: Delivery[] = [];
  const deliveredAtOnce: DeliveredAtOnce[] = [];
  const others: DeliveryRecord[] = [];
  for (const [k, subscriptionId] of subscriptionIds.entries()) {
    const id = fanOutDeliveryId(eventId, subscriptionId);
    const retry = k % 10 === 0;
    const delivery: Delivery = {
      id,
      eventId,
      subscriptionId,
      status: retry ? 'pending' : 'delivered',
      attempts: 1,
      nextAttemptAt: at,
      createdAt: at,
      updatedAt: at,
      version: 2,
    };
    deliveries.push(delivery);
    if (retry) {
      others.push({
        delivery,
        attempts: [
          {
            deliveryId: id,
            attempt: 1,
            at,
            status: 503,
            latencyMs: 5,
            responseHeaders: {},
            responseBody: '',
            outcome: 'retry',
          },
        ],
      });
    } else {
      deliveredAtOnce.push({ id, subscriptionId, at, latencyMs: 5, status: 200 });
    }
  }
  const event = { id: eventId, type: 'customer.updated', storedAt: at, body: '{"a":1}' };
  await store.indexDeliveries(deliveries);
  await store.putFanOuts([{ event, deliveredAtOnce, others }]);
}
const seedStarted = performance.now();
if (flags.shape === 'shared') {
  for (let e = 0; e < DELIVERIES; e++) await fanOut(`evt_${e}`, START_MS - 1000 * e, ids);
} else {
  for (const id of ids)
    for (let e = 0; e < DELIVERIES; e++) await fanOut(`evt_${id}_${e}`, START_MS - 1000 * e, [id]);
}
console.log(
  `seeded ${SUBSCRIPTIONS} subscriptions × ${DELIVERIES} deliveries (${flags.shape}) in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`,
);

/** One page as the console asks for it: its health and the cursor of the next. */
type ReadPage = (cursor: string | undefined) => Promise<{ health: unknown[]; nextCursor?: string }>;

/** Reads every page with `read`, printing each page's time and the total. */
async function readEveryPage(read: ReadPage): Promise<void> {
  const started = performance.now();
  let cursor: string | undefined;
  let pages = 0;
  let health = 0;
  do {
    const pageStarted = performance.now();
    const page = await read(cursor);
    pages += 1;
    health += page.health.length;
    console.log(
      `page ${pages}: ${page.health.length} in ${(performance.now() - pageStarted).toFixed(0)} ms`,
    );
    cursor = page.nextCursor;
  } while (cursor);
  console.log(
    `${health} subscriptions' health in ${pages} pages: ${((performance.now() - started) / 1000).toFixed(2)} s`,
  );
}

if (dataDir) {
  await dynamo.close();
  const spawned = performance.now();
  const bridge = await startBridgeChild({ env: {}, dataDir, pollInterval: '1m' });
  console.log(`start answered after ${((performance.now() - spawned) / 1000).toFixed(1)} s`);
  try {
    await readEveryPage(async (cursor) => {
      const query = cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`;
      return (await bridge.call('GET', `/subscriptions/health?limit=${flags.limit}${query}`)) as {
        health: unknown[];
        nextCursor?: string;
      };
    });
  } finally {
    await bridge.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
} else {
  await readInProcess();
}

/** The pages from the webhook service on the seeded store, with the time of its reads. */
async function readInProcess(): Promise<void> {
  const sender = new UndiciWebhookSender({ policy: { allowPrivate: true }, resolve, clock });
  const deps = createDispatcherDeps({
    store,
    queue: new MemoryDeliveryQueue(clock),
    sender,
    sink: new MemoryOperationalEventSink(),
    clock,
    random: seededRandom(1),
    logger: { warn: () => {}, error: () => {} },
  });
  const bytes = seededRandom(2);
  const service = createWebhookService({
    ...deps,
    policy: { allowPrivate: true },
    resolve,
    randomBytes: (size) => Uint8Array.from({ length: size }, () => Math.floor(bytes() * 256)),
  });
  const spent = new Map<string, { calls: number; ms: number }>();
  for (const name of [
    'listSubscriptions',
    'getEndpointStates',
    'listDeliveryRecordsBySubscription',
  ] as const) {
    const read = store[name].bind(store) as (...args: never[]) => Promise<unknown>;
    Object.assign(store, {
      [name]: async (...args: never[]) => {
        const began = performance.now();
        try {
          return await read(...args);
        } finally {
          const entry = spent.get(name) ?? { calls: 0, ms: 0 };
          spent.set(name, { calls: entry.calls + 1, ms: entry.ms + performance.now() - began });
        }
      },
    });
  }
  const session = new Session();
  if (flags.profile) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  await readEveryPage(async (cursor) => {
    const after = cursor === undefined ? undefined : SubscriptionHealthCursorSchema.parse(cursor);
    const page = await service.subscriptionHealthPage({
      limit: Number(flags.limit),
      ...(after ? { after } : {}),
    });
    return {
      health: page.health,
      ...(page.next ? { nextCursor: encodeSubscriptionHealthCursor(page.next) } : {}),
    };
  });
  // Concurrent reads overlap: each figure is the wall time its calls took, not a share.
  for (const [name, { calls, ms }] of spent)
    console.log(`  ${name}: ${calls} calls, ${(ms / 1000).toFixed(2)} s`);
  if (flags.profile) {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(flags.profile, JSON.stringify(profile));
  }
  await sender.close();
  await dynamo.close();
}
