import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import { STORE_FOLDER } from '../../shared/local/data-dir.ts';
import { startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { LOCAL_TABLE_NAME } from '../../shared/local/runtime.ts';
import { fanOutDeliveryId } from '../../shared/webhooks/delivered-at-once.ts';
import { DynamoDbWebhookStore } from '../../shared/webhooks/dynamodb-store.ts';
import { freePort } from '../support/free-port.ts';
import {
  everyEventReceived,
  type PreparedPendingDeliveries,
  preparePendingDeliveries,
  receivedPerEvent,
  seededSecret,
} from '../support/pending-deliveries-data-dir.ts';
import { receiverPath } from '../support/receiver-path.ts';
import { spawnStartJson } from '../support/start-child.ts';
import { waitFor } from '../support/wait-for.ts';
import { startTestReceiver, type TestReceiver } from './webhook-receiver.ts';

/**
 * Half the subscriptions post to a port that refuses connections, half to one that never answers.
 * 200 deliveries: the hanging endpoint holds as many requests in flight as at 1,000 (its
 * concurrency, not the count, bounds them), and the refused ones still wait in the queue.
 */
const SUBSCRIPTIONS = 40;
const EVENTS = 5;

/**
 * Longest wait for a start to have requests in flight, or to deliver every event: alone a few
 * seconds; on a loaded machine (load 6-18 on 2 cores) the second start had delivered 12 of 100
 * per event after 60 s at 1,000 deliveries.
 */
const RUN_WAIT_MS = 120_000;

/**
 * Short steps, so that what the first run attempted (refused) is due again soon after the
 * restart; twenty of them, so that none is dead-lettered meanwhile.
 */
const RETRY_SCHEDULE_MS = Array.from({ length: 20 }, () => 2_000);

/**
 * Longest a SIGTERM may take to end the process: STOP_REQUEST_GRACE_MS (2 s) for the requests in
 * flight (the hanging receiver's would otherwise hold it for their 15 s timeout), then a few
 * seconds for the rest: the retries not yet attempted are left in the queue as they are, the
 * deliveries cut off deferred (a write each), the store closed (an idle bridge stops in 0.4 s).
 * Measured 2.1–2.5 s here at 1,000 deliveries (also beside another end-to-end test), 2.2-2.8 s at
 * 200, against 29.9–30.4 s before: the 10 s drain, then the batches in flight without limit,
 * through the hanging receiver's timeouts.
 */
const STOP_WITHIN_MS = 6_000;

describe.skipIf(process.platform === 'win32')('a SIGTERM while deliveries go nowhere', () => {
  let hanging: TestReceiver;
  let refused: TestReceiver | undefined;
  let refusedPort: number;
  const refusedPath = receiverPath('refused');
  let dataDir: string;
  let prepared: PreparedPendingDeliveries;
  const secret = seededSecret(43);

  beforeAll(async () => {
    // Accepts each request and never answers it (until released).
    hanging = await startTestReceiver();
    hanging.setSecret(secret);
    hanging.hold();
    refusedPort = await freePort();
    dataDir = await mkdtemp(join(tmpdir(), 'stop-in-flight-'));
    prepared = await preparePendingDeliveries(dataDir, {
      subscriptions: SUBSCRIPTIONS,
      events: EVENTS,
      url: [`http://127.0.0.1:${refusedPort}${refusedPath}`, hanging.url],
      secret,
      retrySchedule: RETRY_SCHEDULE_MS,
    });
  }, 60_000);

  afterAll(async () => {
    await hanging?.close();
    await refused?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('exits 0 promptly with requests refused and unanswered, and the next start delivers every event', async () => {
    const first = spawnStartJson(dataDir, RUN_WAIT_MS);
    // Started, its recovered deliveries attempted: requests wait at the hanging receiver.
    const inFlight = () => first.started() && hanging.waiting > 0;
    await waitFor(inFlight, RUN_WAIT_MS, 'requests in flight', 20);
    const signalledAt = first.elapsed();
    first.child.kill('SIGTERM');
    const ended = await first.ended;
    const stopMs = ended.at - signalledAt;
    console.log(
      `SIGTERM with ${hanging.waiting} requests unanswered: exited ${stopMs.toFixed(0)} ms after the signal (code ${ended.code})`,
    );
    expect({ code: ended.code, signal: ended.signal }, first.output()).toEqual({
      code: 0,
      signal: null,
    });
    expect(first.output()).toContain('"message":"stopped"');
    expect(stopMs).toBeLessThan(STOP_WITHIN_MS);
    // Nothing was delivered, nothing lost: every delivery still waits for its attempt.
    expect(await statusesIn(dataDir, prepared)).toEqual(
      new Map([['pending', prepared.deliveries]]),
    );

    // Both endpoints work now: the next start delivers every event to every subscription.
    hanging.release();
    refused = await startTestReceiver({ port: refusedPort, path: refusedPath });
    refused.setSecret(secret);
    const received = () => [...hanging.received, ...refused!.received];
    const second = spawnStartJson(dataDir, 2 * RUN_WAIT_MS);
    // Counted at the receivers (the store is the running bridge's); checked in it after.
    await waitFor(
      () => everyEventReceived(prepared, received(), SUBSCRIPTIONS),
      RUN_WAIT_MS,
      'every delivery',
      100,
    ).catch(() => undefined);
    second.child.kill('SIGTERM');
    expect((await second.ended).code, second.output()).toBe(0);
    expect(hanging.rejected + refused.rejected).toBe(0);
    const perEvent = receivedPerEvent(received());
    for (const eventId of prepared.eventIds)
      expect(perEvent.get(eventId), eventId).toBeGreaterThanOrEqual(SUBSCRIPTIONS);
    expect(await statusesIn(dataDir, prepared)).toEqual(
      new Map([['delivered', prepared.deliveries]]),
    );
  }, 360_000);
});

/** How many of the prepared deliveries `dataDir`'s store holds in each status. */
async function statusesIn(
  dataDir: string,
  prepared: PreparedPendingDeliveries,
): Promise<Map<string, number>> {
  const dynamo = await startLocalDynamoDb({ listen: false, path: join(dataDir, STORE_FOLDER) });
  try {
    const store = new DynamoDbWebhookStore({
      client: dynamo.client,
      tableName: LOCAL_TABLE_NAME,
      clock: systemClock,
    });
    const statuses = new Map<string, number>();
    for (const subscriptionId of prepared.subscriptionIds)
      for (const eventId of prepared.eventIds) {
        const delivery = await store.getDelivery(fanOutDeliveryId(eventId, subscriptionId));
        const status = delivery?.status ?? 'missing';
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    return statuses;
  } finally {
    await dynamo.close();
  }
}
