import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it } from 'vitest';
import { seededRandom, systemClock } from '../../shared/clock.ts';
import { requeuePendingDeliveries } from '../../shared/local/dispatch-recovery.ts';
import { type LocalDispatch, startLocalDispatch } from '../../shared/local/local-dispatch.ts';
import { jsonReporter } from '../../shared/local/reporter.ts';
import type { PublishableEvent } from '../../shared/publish/publishable-event.ts';
import { fanOutDeliveryId } from '../../shared/webhooks/delivered-at-once.ts';
import { processDispatchBatch } from '../../shared/webhooks/dispatcher.ts';
import { DispatcherEnvSchema, dispatcherSettings } from '../../shared/webhooks/dispatcher-env.ts';
import { DynamoDbDeliveryCounter } from '../../shared/webhooks/dynamodb-delivery-counter.ts';
import { DynamoDbWebhookStore } from '../../shared/webhooks/dynamodb-store.ts';
import { waitFor } from '../support/wait-for.ts';
import { startDispatchFixture } from '../webhooks/support/fixture.ts';
import { anotherProcess, changeEvent, envelope, eventIdOf } from '../webhooks/support/harness.ts';
import { startLocalTable } from '../webhooks/support/local-dynamodb.ts';
import { type ReceivedRequest, startReceiver } from '../webhooks/support/receiver.ts';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

describe('requeuePendingDeliveries', () => {
  it('keeps a subject’s new event behind its delivery that waits for a retry, across a restart', async () => {
    const answered: Array<string | undefined> = [];
    let failFirst = true;
    const { harness, subscribe, clock } = await startDispatchFixture(cleanup, (request) => {
      const id = (request as ReceivedRequest).headers['webhook-id'];
      answered.push(id);
      const status = id === eventIdOf(1) && failFirst ? 500 : 200;
      failFirst &&= id !== eventIdOf(1);
      return { kind: 'respond', status };
    });
    await subscribe('/ordered', { retrySchedule: [10_000] });
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(1), { subject: 'c-1' })));
    await harness.drainVisible();

    // A new process: the same store and queue, a scheduler that knows nothing yet.
    const restarted = anotherProcess(harness.deps);
    expect(await requeuePendingDeliveries(restarted)).toBe(1);
    await clock.advance(1_000);
    await processDispatchBatch(
      [{ messageId: 'm2', body: envelope(changeEvent(eventIdOf(2), { subject: 'c-1' })) }],
      restarted,
    );
    expect(answered).toEqual([eventIdOf(1)]);

    for (let second = 0; second < 20; second++) {
      await clock.advance(1_000);
      await processDispatchBatch(harness.queue.receive(10), restarted);
    }
    expect(answered).toEqual([1, 1, 2].map(eventIdOf));
  });
});

describe('requeuePendingDeliveries, deliveries of one subject created in one batch', () => {
  it('keeps a backfill created ahead of the change its poll sent after it, whatever their ids', async () => {
    // Both orders of ids: noted by id, one of them had the change go first after a restart.
    for (const [createdId, changeId] of [
      [eventIdOf(1), eventIdOf(2)],
      [eventIdOf(4), eventIdOf(3)],
    ] as const) {
      const { harness, subscribe } = await startDispatchFixture(cleanup, (request) => ({
        kind: 'respond',
        status: (request as ReceivedRequest).headers['webhook-id'] === createdId ? 500 : 200,
      }));
      const { subscription } = await subscribe('/ordered', { retrySchedule: [10_000] });
      // One poll's two events of c-1, as one batch takes them: the created, then the change.
      await processDispatchBatch(
        [
          {
            messageId: 'm-c',
            body: envelope(changeEvent(createdId, { subject: 'c-1', type: 'customer.created' })),
          },
          { messageId: 'm-u', body: envelope(changeEvent(changeId, { subject: 'c-1' })) },
        ],
        harness.deps,
      );
      const pending = await harness.store.listDeliveries({
        subscriptionId: subscription.id,
        limit: 10,
      });
      expect(pending.map((delivery) => delivery.status)).toEqual(['pending', 'pending']);
      expect(new Set(pending.map((delivery) => delivery.createdAt)).size).toBe(1);
      const created = pending.find((delivery) => delivery.eventId === createdId)!;
      const change = pending.find((delivery) => delivery.eventId === changeId)!;

      // A new process, whose queue's messages name each delivery's subject.
      const restarted = anotherProcess(harness.deps);
      const queued = new Map(pending.map((delivery) => [delivery.id, 'c-1']));
      await requeuePendingDeliveries(restarted, queued);
      expect(restarted.scheduler.waitsBehind(subscription.id, 'c-1', created.id)).toBe(true);
      expect(restarted.scheduler.waitsBehind(subscription.id, 'c-1', change.id)).toBe(false);
    }
  });
});

/**
 * The delivery side of `change-bridge start` on a data dir and table of its own, a receiver
 * answering `decide`: `start` starts a run (again on the same data dir, as after a restart).
 */
async function localRuns(name: string, decide: Parameters<typeof startReceiver>[0]) {
  const table = await startLocalTable(name);
  const dataDir = await mkdtemp(join(tmpdir(), `${name}-`));
  const receiver = await startReceiver(decide);
  cleanup.push(
    () => table.stop(),
    () => rm(dataDir, { recursive: true, force: true }),
    () => receiver.close(),
  );
  const store = new DynamoDbWebhookStore({
    client: table.client,
    tableName: table.tableName,
    clock: systemClock,
  });
  const start = async () => {
    const dispatch = await startLocalDispatch({
      dataDir,
      store,
      deliveryCounter: new DynamoDbDeliveryCounter({
        client: table.client,
        tableName: table.tableName,
      }),
      allowPrivate: true,
      settings: dispatcherSettings(DispatcherEnvSchema.parse({})),
      reporter: jsonReporter({ write: () => undefined, now: () => Date.now() }),
      clock: systemClock,
      random: seededRandom(3),
    });
    const stop = async () => {
      await dispatch.stop();
      await dispatch.close();
    };
    cleanup.push(stop);
    return { dispatch, stop };
  };
  return { receiver, store, start };
}

describe('change-bridge start reading pending deliveries back', () => {
  it('keeps a subject’s new event behind its retry older than the newest 1,000 deliveries of its subscription', async () => {
    let failFirst = true;
    const { receiver, store, start } = await localRuns('recovery-restart', (request) => {
      const status = request.headers['webhook-id'] === eventIdOf(1) && failFirst ? 500 : 200;
      failFirst = false;
      return { kind: 'respond', status };
    });
    const ids = () => receiver.log.map((request) => request.headers['webhook-id']);
    const ofC1 = (n: number) => changeEvent(eventIdOf(n), { subject: 'c-1' }) as PublishableEvent;

    // A first run: event 1 of c-1 fails and waits 3 s for its retry (its message on disk).
    const first = await start();
    const created = await first.dispatch.webhooks.createSubscription({
      url: receiver.url('/ordered'),
      retrySchedule: [3_000],
    });
    const subscriptionId = created.subscription.id;
    receiver.secrets.set('/ordered', [created.secret]);
    await first.dispatch.router.publish([ofC1(1)]);
    await waitFor(() => receiver.log.length === 1, 10_000, 'the first attempt');
    await first.stop();
    cleanup.pop();

    // While it waits, 1,000 later events of other subjects were delivered at once.
    const later = Array.from({ length: 1_000 }, (_, index) => {
      const eventId = eventIdOf(100 + index);
      const at = Date.now() + index;
      return {
        eventId,
        at,
        delivery: {
          id: fanOutDeliveryId(eventId, subscriptionId),
          eventId,
          subscriptionId,
          status: 'delivered' as const,
          attempts: 1,
          nextAttemptAt: at,
          createdAt: at,
          updatedAt: at,
          version: 2,
        },
      };
    });
    await store.indexDeliveries(later.map((entry) => entry.delivery));
    await store.putFanOuts(
      later.map(({ eventId, at, delivery }) => ({
        event: {
          id: eventId,
          type: 'customer.updated',
          storedAt: at,
          body: JSON.stringify(changeEvent(eventId)),
        },
        deliveredAtOnce: [{ id: delivery.id, subscriptionId, at, latencyMs: 1, status: 200 }],
        others: [],
      })),
    );
    const listed = await store.listDeliveries({ subscriptionId, limit: 1_000 });
    expect(listed.some((delivery) => delivery.eventId === eventIdOf(1))).toBe(false);

    // A restart, then a new event of c-1: it goes after the retry of event 1, not before it.
    const second = await start();
    expect(second.dispatch.requeued).toBe(0);
    await second.dispatch.router.publish([ofC1(2)]);
    await waitFor(() => receiver.log.length >= 3, 15_000, 'the retry and the new event');
    expect(ids()).toEqual([1, 1, 2].map(eventIdOf));
  });
});

describe('change-bridge start, a backfill’s deliveries that wait', () => {
  it('wait in the bulk lane’s deliveries queue, not the live lane’s, and a restart finds them there', async () => {
    let failFirst = true;
    const { receiver, start } = await localRuns('bulk-deliveries-queue', () => {
      const status = failFirst ? 500 : 200;
      failFirst = false;
      return { kind: 'respond', status };
    });
    /** Delayed messages of each queue: the live lane's, the bulk lane's events, its deliveries. */
    const delayed = (dispatch: LocalDispatch) =>
      Promise.all(
        dispatch.queueUrls.map(async (url) => {
          const { Attributes } = await dispatch.sqsClient.send(
            new GetQueueAttributesCommand({
              QueueUrl: url,
              AttributeNames: ['ApproximateNumberOfMessagesDelayed'],
            }),
          );
          return Number(Attributes?.ApproximateNumberOfMessagesDelayed);
        }),
      );

    const first = await start();
    const created = await first.dispatch.webhooks.createSubscription({
      url: receiver.url('/bulk'),
      retrySchedule: [3_000],
    });
    receiver.secrets.set('/bulk', [created.secret]);
    // A backfill's `created` whose first attempt fails.
    const backfilled = changeEvent(eventIdOf(1), { subject: 'c-1', type: 'customer.created' });
    await first.dispatch.router.publish([backfilled as PublishableEvent], { lane: 'bulk' });
    await waitFor(() => receiver.log.length === 1, 10_000, 'the first attempt');
    await waitFor(
      async () => (await delayed(first.dispatch)).join() === '0,0,1',
      10_000,
      'its retry message in the bulk lane’s deliveries queue',
    );
    await first.stop();
    cleanup.pop();

    // A restart reads its message there (nothing re-enqueued), and its consumer sends the retry.
    const second = await start();
    expect(second.dispatch.requeued).toBe(0);
    await waitFor(() => receiver.log.length === 2, 15_000, 'the retry');
    expect(receiver.log.map((request) => request.headers['webhook-id'])).toEqual([
      eventIdOf(1),
      eventIdOf(1),
    ]);
  });
});
