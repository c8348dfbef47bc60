import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/clock.ts';
import { startDispatchFixture } from './support/fixture.ts';
import { changeEvent, type createHarness, envelope, eventIdOf } from './support/harness.ts';
import { peakInFlight } from './support/peak-in-flight.ts';
import type { ReceivedRequest, ReceiverAction } from './support/receiver.ts';

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

function setup(
  decide?: (request: ReceivedRequest) => ReceiverAction,
  options: Parameters<typeof createHarness>[0] = {},
) {
  return startDispatchFixture(
    cleanup,
    decide as ((request: { path: string }) => ReceiverAction) | undefined,
    { clock: systemClock, ...options },
  );
}

describe('deliveries to receivers that misbehave or are merely slow', () => {
  it('runs a subscription maxConcurrency of 128 at once, none queued in the sender past its timeout', async () => {
    const spans: { start: number; end: number }[] = [];
    const { receiver, harness, subscribe } = await setup(
      (request) => {
        spans.push({ start: request.at, end: request.at + 600 });
        return { kind: 'respond', status: 200, delayMs: 600 };
      },
      { timeoutMs: 2000 },
    );
    const { subscription } = await subscribe('/slow', { maxConcurrency: 128 });
    for (let n = 0; n < 128; n++) harness.queue.sendRaw(envelope(changeEvent(eventIdOf(n))));
    await harness.drainVisible(128);
    const deliveries = await harness.service.listDeliveries({
      subscriptionId: subscription.id,
      limit: 200,
    });
    // A pool of 32 connections would hold the last 32 for three answers (1.8 s) before sending.
    expect(deliveries.map((d) => d.attempts.map((a) => a.error ?? a.status))).toEqual(
      Array.from({ length: 128 }, () => [200]),
    );
    expect(receiver.log).toHaveLength(128);
    expect(peakInFlight(spans)).toBeGreaterThan(32);
  });
});
