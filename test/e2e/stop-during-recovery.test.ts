import { cp, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
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
 * (measured without a signal): before, it exited only once started, and after its stop.
 */
const STOP_WITHIN_SHARE_OF_LEFT = 0.5;

/** `ms` as `1234 ms`. */
function ms(milliseconds: number): string {
  return `${milliseconds.toFixed(0)} ms`;
}

/**
 * Milliseconds from `run`'s spawn to when its recovery of pending deliveries began sending them
 * back to the dispatch queue: the queue's log under `dataDir` holds its first bytes.
 */
async function whenRecoverySends(dataDir: string, run: StartChild): Promise<number> {
  const folder = join(dataDir, QUEUE_FOLDER, DISPATCH_QUEUE_NAME);
  const logBytes = async () => {
    const names = await readdir(folder).catch(() => []);
    let bytes = 0;
    for (const name of names.filter((n) => n.endsWith('.log')))
      bytes += (await stat(join(folder, name)).catch(() => ({ size: 0 }))).size;
    return bytes;
  };
  await waitFor(
    async () => (await logBytes()) > 0 || run.startedAt() !== undefined,
    45_000,
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
  let measureDir: string;
  let prepared: PreparedPendingDeliveries;
  const secret = seededSecret(41);

  beforeAll(async () => {
    receiver = await startTestReceiver();
    receiver.setSecret(secret);
    dataDir = await mkdtemp(join(tmpdir(), 'stop-recovery-'));
    measureDir = await mkdtemp(join(tmpdir(), 'stop-recovery-measure-'));
    prepared = await preparePendingDeliveries(dataDir, {
      subscriptions: SUBSCRIPTIONS,
      events: EVENTS,
      url: receiver.url,
      secret,
    });
    await cp(dataDir, measureDir, { recursive: true });
  });

  afterAll(async () => {
    await receiver?.close();
    for (const dir of [dataDir, measureDir]) await rm(dir, { recursive: true, force: true });
  });

  it('ends start at once on SIGTERM while it recovers pending deliveries, exit 0, and the next start delivers them all', async () => {
    // Without a signal, on a copy: how long start takes, and how long it still takes once its
    // recovery sends the deliveries it found back to the queue.
    const measured = spawnStartJson(measureDir);
    const measuredSendingAt = await whenRecoverySends(measureDir, measured);
    const startUpMs = await waitFor(measured.startedAt, 45_000, 'the measuring start', 20);
    const startUpLeftMs = startUpMs - measuredSendingAt;
    measured.child.kill('SIGKILL');
    await measured.ended;
    receiver.received.splice(0);

    // SIGTERM as soon as the recovery sends: it ends at its next delivery, well before the rest.
    const signalled = spawnStartJson(dataDir);
    const signalledAt = await whenRecoverySends(dataDir, signalled);
    signalled.child.kill('SIGTERM');
    const ended = await signalled.ended;
    const stopMs = ended.at - signalledAt;
    const figures = `start-up without a signal ${ms(startUpMs)} (recovery sending from ${ms(measuredSendingAt)}); SIGTERM at ${ms(signalledAt)}, exited at ${ms(ended.at)} (code ${ended.code}): ${ms(stopMs)} after the signal, against ${ms(startUpLeftMs)} of start-up left`;
    console.log(figures);
    expect({ code: ended.code, signal: ended.signal }, signalled.output()).toEqual({
      code: 0,
      signal: null,
    });
    expect(signalled.output()).not.toContain('"message":"started"');
    expect(signalled.output()).toContain('SIGTERM: stopping');
    expect(signalled.output()).toContain('"message":"stopped"');
    expect(stopMs, figures).toBeLessThan(startUpLeftMs * STOP_WITHIN_SHARE_OF_LEFT);

    // The next start recovers what the stopped one had not, and delivers every pending delivery.
    const resumed = spawnStartJson(dataDir);
    await waitFor(
      () => everyEventReceived(prepared, receiver.received, SUBSCRIPTIONS),
      45_000,
      'every pending delivery',
      50,
    );
    // The stopped start had sent part of them back to the queue; this one, the others.
    const requeued = Number(/"requeuedDeliveries":(\d+)/.exec(resumed.output())?.[1]);
    expect(requeued).toBeGreaterThan(0);
    expect(requeued).toBeLessThan(prepared.deliveries);
    resumed.child.kill('SIGTERM');
    expect((await resumed.ended).code, resumed.output()).toBe(0);
    expect(receiver.rejected).toBe(0);
    const perEvent = receivedPerEvent(receiver.received);
    for (const eventId of prepared.eventIds)
      expect(perEvent.get(eventId), eventId).toBeGreaterThanOrEqual(SUBSCRIPTIONS);
    expect(await undeliveredIn(dataDir, prepared)).toEqual([]);
  }, 120_000);
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
