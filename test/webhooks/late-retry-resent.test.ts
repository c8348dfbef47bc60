import { afterEach, describe, expect, it } from 'vitest';
import { checkLongOverdueWaiting, processDispatchBatch } from '../../shared/webhooks/dispatcher.ts';
import { FORGOTTEN_AFTER_MS } from '../../shared/webhooks/waiting-deliveries.ts';
import { startDispatchFixture } from './support/fixture.ts';
import { changeEvent, envelope, eventIdOf } from './support/harness.ts';
import type { ReceivedRequest } from './support/receiver.ts';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

const RETRY_MS = 60_000;

/**
 * A delivery whose first attempt failed, its retry message taken from the queue when due and
 * held (late, not lost), then sent again by the memory's check once more than 15 minutes
 * overdue: the held original and the message sent again, both on hand.
 */
async function lateRetrySentAgain() {
  let answered = 0;
  const { harness, subscribe, clock, receiver } = await startDispatchFixture(cleanup, (request) => {
    answered++;
    const id = (request as ReceivedRequest).headers['webhook-id'];
    return { kind: 'respond', status: answered === 1 && id === eventIdOf(1) ? 500 : 200 };
  });
  await subscribe('/late', { retrySchedule: [RETRY_MS] });
  harness.queue.sendRaw(envelope(changeEvent(eventIdOf(1), { subject: 'c-1' })));
  await harness.drainVisible();
  await clock.advance(RETRY_MS);
  const [original] = harness.queue.receive(10);
  await clock.advance(FORGOTTEN_AFTER_MS + 1_000);
  await checkLongOverdueWaiting(harness.deps);
  const [resent] = harness.queue.receive(10);
  const deliveryId = JSON.parse(original!.body).deliveryId as string;
  expect(JSON.parse(resent!.body)).toMatchObject({ deliveryId, subject: 'c-1' });
  const webhookIds = () => receiver.log.map((request) => request.headers['webhook-id']);
  return { harness, original: original!, resent: resent!, deliveryId, webhookIds };
}

describe('a retry message late rather than lost, sent again', () => {
  it('is skipped when it comes after the copy sent again was delivered: the webhook goes once', async () => {
    const { harness, original, resent, deliveryId, webhookIds } = await lateRetrySentAgain();
    await processDispatchBatch([resent], harness.deps);
    expect(webhookIds()).toEqual([eventIdOf(1), eventIdOf(1)]);
    await processDispatchBatch([original], harness.deps);
    expect(webhookIds()).toEqual([eventIdOf(1), eventIdOf(1)]);
    expect(await harness.store.getDelivery(deliveryId)).toMatchObject({ status: 'delivered' });
    expect(harness.queue.size).toBe(0);
  });

  it('goes once when both copies arrive at once, in one batch or in two of the process', async () => {
    const inOne = await lateRetrySentAgain();
    await processDispatchBatch([inOne.original, inOne.resent], inOne.harness.deps);
    expect(inOne.webhookIds()).toEqual([eventIdOf(1), eventIdOf(1)]);

    const inTwo = await lateRetrySentAgain();
    await Promise.all([
      processDispatchBatch([inTwo.resent], inTwo.harness.deps),
      processDispatchBatch([inTwo.original], inTwo.harness.deps),
    ]);
    expect(inTwo.webhookIds()).toEqual([eventIdOf(1), eventIdOf(1)]);
    expect(await inTwo.harness.store.getDelivery(inTwo.deliveryId)).toMatchObject({
      status: 'delivered',
    });
  });
});
