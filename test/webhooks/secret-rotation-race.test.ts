import { afterEach, describe, expect, it } from 'vitest';
import { startDispatchFixture } from './support/fixture.ts';
import { changeEvent, envelope, eventIdOf } from './support/harness.ts';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

// Each rotation answers a secret the caller configures its receiver with: a write that started
// from the subscription as it was before another one's lands over that one and drops its secret.
describe('a secret rotated while another change of the subscription is in flight', () => {
  it('signs with the secret of each of two rotations at once', async () => {
    const { receiver, harness, subscribe } = await startDispatchFixture(cleanup);
    const { subscription } = await subscribe('/twice');
    const [one, two] = await Promise.all([
      harness.service.rotateSecret(subscription.id),
      harness.service.rotateSecret(subscription.id),
    ]);
    for (const [index, rotated] of [one, two].entries()) {
      receiver.secrets.set('/twice', [rotated.secret]);
      harness.queue.sendRaw(envelope(changeEvent(eventIdOf(60 + index))));
      await harness.drainVisible();
      expect(receiver.log.at(-1)?.verifiedWith).toBe(1);
    }
  });

  it('keeps the rotated secret when the subscription is updated at the same time', async () => {
    const { receiver, harness, subscribe } = await startDispatchFixture(cleanup);
    const { subscription } = await subscribe('/updated');
    const [rotated] = await Promise.all([
      harness.service.rotateSecret(subscription.id),
      harness.service.updateSubscription(subscription.id, { description: 'billing' }),
    ]);
    receiver.secrets.set('/updated', [rotated.secret]);
    harness.queue.sendRaw(envelope(changeEvent(eventIdOf(62))));
    await harness.drainVisible();
    expect(receiver.log.at(-1)?.verifiedWith).toBe(1);
  });
});
