import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBridge } from '../../shared/local/runtime.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { startTestReceiver, type TestReceiver } from '../e2e/webhook-receiver.ts';
import { type InProcessBridge, startInProcessBridge } from '../support/in-process-bridge.ts';
import { waitFor } from '../support/wait-for.ts';

/**
 * `streams reset` under `change-bridge start` (dynalite, pollers, dispatcher in this process):
 * the reset answers at once and leaves the old snapshots to the stream's poller, which deletes
 * them before the first sync; that first sync (INITIAL_SYNC=emit) sends every customer again.
 */
describe('streams reset against a running bridge', () => {
  let sim: RunningSimulator;
  let started: InProcessBridge;
  let bridge: RunningBridge;
  let receiver: TestReceiver;

  async function streams() {
    const response = await fetch(`${bridge.adminUrl}/streams`);
    return ((await response.json()) as { streams: Record<string, unknown>[] }).streams;
  }

  beforeAll(async () => {
    sim = await startSimulator({ seed: 23, size: 'small', rateLimit: false });
    receiver = await startTestReceiver();
    started = await startInProcessBridge(sim, {
      POLL_ENTITIES: 'customer',
      POLL_HISTORY_START: '400d',
      INITIAL_SYNC: 'emit',
    });
    bridge = started.bridge;
    await started.subscribe(receiver);
  }, 30_000);

  afterAll(async () => {
    await started?.close();
    await receiver?.close();
    await sim?.close();
  });

  function createdSubjects(): Set<string> {
    return new Set(
      receiver.received.filter((e) => e.type === 'customer.created').map((e) => e.subject),
    );
  }

  it('sends created for every customer again after a reset', async () => {
    const active = [...sim.controls.model.customers.all()].filter((e) => e.record.IsActive);
    await waitFor(() => createdSubjects().size >= active.length, 20_000, 'the first sync', 50);
    await waitFor(
      async () => (await streams()).every((s) => s.lastSuccessAt),
      10_000,
      'a caught-up stream',
      50,
    );
    const before = receiver.received.length;
    receiver.received.length = 0;
    expect(before).toBeGreaterThan(0);

    const reset = await fetch(`${bridge.adminUrl}/streams/local:customer/reset`, {
      method: 'POST',
    });
    expect(reset.status).toBe(200);
    await waitFor(() => createdSubjects().size >= active.length, 20_000, 'the second sync', 50);
    expect(createdSubjects().size).toBe(active.length);
  }, 60_000);
});
