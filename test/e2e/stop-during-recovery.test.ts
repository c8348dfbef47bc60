import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import { QUEUE_FOLDER, STORE_FOLDER } from '../../shared/local/data-dir.ts';
import { startLocalDynamoDb } from '../../shared/local/dynamodb.ts';
import { DISPATCH_QUEUE_NAME } from '../../shared/local/local-dispatch.ts';
import { LOCAL_TABLE_NAME } from '../../shared/local/runtime.ts';
import { fanOutDeliveryId } from '../../shared/webhooks/delivered-at-once.ts';
import { DynamoDbWebhookStore } from '../../shared/webhooks/dynamodb-store.ts';
import {
  everyEventReceived,
  type PreparedPendingDeliveries,
  preparePendingDeliveries,
  receivedPerEvent,
  seededSecret,
} from '../support/pending-deliveries-data-dir.ts';
import { type StartChild, spawnStartJson } from '../support/start-child.ts';
import { waitFor } from '../support/wait-for.ts';
import { startTestReceiver, type TestReceiver } from './webhook-receiver.ts';

/** Sized so that start's recovery of the pending deliveries takes seconds, the rest a second. */
const SUBSCRIPTIONS = 300;
const EVENTS = 8;

/**
 * The signalled start must have exited within this share of what its start-up had left to do
 * (measured by the next start, which does what it left): before, it exited only once started,
 * and after its stop.
 */
const STOP_WITHIN_SHARE_OF_LEFT = 0.5;

/**
 * Longest wait for one step of a start (its recovery to send, its start-up, every delivery made):
 * alone a few seconds each; a loaded machine (load 6-18 on 2 cores) took past 45 s. The test's
 * own timeout is four of these.
 */
const RUN_WAIT_MS = 90_000;

/** `ms` as `1234 ms`. */
function ms(milliseconds: number): string {
  return `${milliseconds.toFixed(0)} ms`;
}

/** Bytes of the dispatch queue's log under `dataDir` (0 before its first message). */
async function queueLogBytes(dataDir: string): Promise<number> {
  const folder = join(dataDir, QUEUE_FOLDER, DISPATCH_QUEUE_NAME);
  const names = await readdir(folder).catch(() => []);
  let bytes = 0;
  for (const name of names.filter((n) => n.endsWith('.log')))
    bytes += (await stat(join(folder, name)).catch(() => ({ size: 0 }))).size;
  return bytes;
}

/**
 * Milliseconds from `run`'s spawn to when its recovery of pending deliveries began sending them
 * back to the dispatch queue: the queue's log under `dataDir` grew past `bytesBefore`, what it
 * held when `run` was spawned.
 */
async function whenRecoverySends(
  dataDir: string,
  run: StartChild,
  bytesBefore: number,
): Promise<number> {
  await waitFor(
    async () => (await queueLogBytes(dataDir)) > bytesBefore || run.startedAt() !== undefined,
    RUN_WAIT_MS,
    'the recovery to send',
    10,
  );
  if (run.startedAt() !== undefined)
    throw new Error(`started before its recovery sent: ${run.output()}`);
  return run.elapsed();
}

describe.skipIf(process.platform === 'win32')('a stop signal during start-up', () => {
  let receiver: TestReceiver;
  let dataDir: string;
  let prepared: PreparedPendingDeliveries;
  const secret = seededSecret(41);

  beforeAll(async () => {
    receiver = await startTestReceiver();
    receiver.setSecret(secret);
    dataDir = await mkdtemp(join(tmpdir(), 'stop-recovery-'));
    prepared = await preparePendingDeliveries(dataDir, {
      subscriptions: SUBSCRIPTIONS,
      events: EVENTS,
      url: receiver.url,
      secret,
    });
  }, RUN_WAIT_MS);

  afterAll(async () => {
    await receiver?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('ends start at once on SIGTERM while it recovers pending deliveries, exit 0, and the next start delivers them all', async () => {
    // SIGTERM as soon as the recovery sends: it ends at its next delivery, well before the rest.
    const signalled = spawnStartJson(dataDir, RUN_WAIT_MS);
    const signalledAt = await whenRecoverySends(dataDir, signalled, 0);
    signalled.child.kill('SIGTERM');
    const ended = await signalled.ended;
    const stopMs = ended.at - signalledAt;
    expect({ code: ended.code, signal: ended.signal }, signalled.output()).toEqual({
      code: 0,
      signal: null,
    });
    expect(signalled.output()).not.toContain('"message":"started"');
    expect(signalled.output()).toContain('SIGTERM: stopping');
    expect(signalled.output()).toContain('"message":"stopped"');

    // The next start, without a signal, recovers what the stopped one had not: how long its
    // start-up takes once its recovery sends is what the stopped one still had to do.
    const bytesBefore = await queueLogBytes(dataDir);
    const resumed = spawnStartJson(dataDir, 2 * RUN_WAIT_MS);
    const resumedSendingAt = await whenRecoverySends(dataDir, resumed, bytesBefore);
    const resumedStartUpMs = await waitFor(resumed.startedAt, RUN_WAIT_MS, 'the next start', 20);
    const startUpLeftMs = resumedStartUpMs - resumedSendingAt;
    const figures = `SIGTERM at ${ms(signalledAt)}, exited at ${ms(ended.at)} (code ${ended.code}): ${ms(stopMs)} after the signal, against ${ms(startUpLeftMs)} of start-up left (the next start: recovery sending from ${ms(resumedSendingAt)}, started at ${ms(resumedStartUpMs)})`;
    console.log(figures);
    expect(stopMs, figures).toBeLessThan(startUpLeftMs * STOP_WITHIN_SHARE_OF_LEFT);
    // The stopped start had sent part of them back to the queue; this one, the others.
    const requeued = Number(/"requeuedDeliveries":(\d+)/.exec(resumed.output())?.[1]);
    expect(requeued).toBeGreaterThan(0);
    expect(requeued).toBeLessThan(prepared.deliveries);

    // And it delivers every pending delivery.
    await waitFor(
      () => everyEventReceived(prepared, receiver.received, SUBSCRIPTIONS),
      RUN_WAIT_MS,
      'every pending delivery',
      50,
    );
    resumed.child.kill('SIGTERM');
    expect((await resumed.ended).code, resumed.output()).toBe(0);
    expect(receiver.rejected).toBe(0);
    const perEvent = receivedPerEvent(receiver.received);
    for (const eventId of prepared.eventIds)
      expect(perEvent.get(eventId), eventId).toBeGreaterThanOrEqual(SUBSCRIPTIONS);
    expect(await undeliveredIn(dataDir, prepared)).toEqual([]);
  }, 360_000);
});

/** The prepared deliveries not stored as delivered in `dataDir`'s store. */
async function undeliveredIn(
  dataDir: string,
  prepared: PreparedPendingDeliveries,
): Promise<string[]> {
  const dynamo = await startLocalDynamoDb({ listen: false, path: join(dataDir, STORE_FOLDER) });
  try {
    const store = new DynamoDbWebhookStore({
      client: dynamo.client,
      tableName: LOCAL_TABLE_NAME,
      clock: systemClock,
    });
    const undelivered: string[] = [];
    for (const subscriptionId of prepared.subscriptionIds)
      for (const eventId of prepared.eventIds) {
        const id = fanOutDeliveryId(eventId, subscriptionId);
        if ((await store.getDelivery(id))?.status !== 'delivered') undelivered.push(id);
      }
    return undelivered;
  } finally {
    await dynamo.close();
  }
}
