import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait-for.ts';
import { type ChaosReceiver, startChaosReceiver } from './chaos-receiver.ts';

const SECRET = `whsec_${Buffer.from('chaos receiver test secret').toString('base64')}`;

/** Longer than the receiver's in-flight grace after a 429 (300 ms). */
const PAST_GRACE_MS = 400;
/** The Retry-After asked: long enough that a loaded machine still posts inside it. */
const PAUSE_SECONDS = 10;
/** A few ticks of the receiver's loop (one each 20 ms). */
const LOOP_TICKS_MS = 100;

let receiver: ChaosReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

/** POSTs a signed webhook `id` to the receiver, as the bridge does; resolves with the status. */
async function post(url: string, id: string): Promise<number> {
  const body = JSON.stringify({
    type: 'resource.updated',
    subject: 'r1',
    time: new Date().toISOString(),
    data: { current: { State: 'Clean' }, previous: { State: 'Dirty' } },
  });
  const signature = new Webhook(SECRET).sign(id, new Date(), body);
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
      'webhook-signature': signature,
    },
    body,
  });
  await response.arrayBuffer();
  return response.status;
}

describe('the chaos receiver', () => {
  it('judges a request in a pause by when the bridge was seen to store it, even when it showed it later', async () => {
    // Every first attempt fails, with a 429 (the draw 0.3 picks it among the four faults).
    receiver = await startChaosReceiver({
      failShare: 1,
      retryAfterSeconds: PAUSE_SECONDS,
      random: () => 0.3,
    });
    receiver.setSecret(SECRET);
    let stored: number | undefined;
    receiver.probePauses(async () => stored);

    expect(await post(receiver.url, 'evt_A')).toBe(429);
    const pausedUntil = Date.now() + PAUSE_SECONDS * 1000;
    // A retry past the grace, while the bridge does not show the pause yet (it read the 429 late).
    await new Promise((resolve) => setTimeout(resolve, PAST_GRACE_MS));
    expect(await post(receiver.url, 'evt_A')).toBe(204);
    stored = pausedUntil;
    await waitFor(() => receiver!.pausesLearned === 1, 5_000, 'the pause seen stored');
    // Before, the request was judged when it came: a violation, the bridge not yet knowing.
    expect(receiver.retryAfterViolations).toBe(0);
    // Once the bridge holds the pause, a request in it is one (past a tick of the receiver's
    // loop, which tells when a request may have come at the earliest).
    await new Promise((resolve) => setTimeout(resolve, LOOP_TICKS_MS));
    expect(await post(receiver.url, 'evt_A')).toBe(204);
    expect(receiver.retryAfterViolations).toBe(1);
    expect(receiver.violations.map((v) => v.webhookId)).toEqual(['evt_A']);
  });

  it('holds a pause the bridge never shows stored to the in-flight grace alone', async () => {
    receiver = await startChaosReceiver({
      failShare: 1,
      retryAfterSeconds: PAUSE_SECONDS,
      random: () => 0.3,
    });
    receiver.setSecret(SECRET);
    receiver.probePauses(async () => undefined);
    expect(await post(receiver.url, 'evt_B')).toBe(429);
    await new Promise((resolve) => setTimeout(resolve, PAST_GRACE_MS));
    expect(await post(receiver.url, 'evt_B')).toBe(204);
    expect(receiver.retryAfterViolations).toBe(1);
    expect(receiver.pausesLearned).toBe(0);
  });
});
