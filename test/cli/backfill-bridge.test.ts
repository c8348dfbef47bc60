import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackfillJobViewSchema } from '../../shared/admin/schemas.ts';
import { runCli } from '../../shared/cli/main.ts';
import type { RunningBridge } from '../../shared/local/runtime.ts';
import { type RunningSimulator, startSimulator } from '../../shared/simulator/simulator.ts';
import { startTestReceiver, type TestReceiver } from '../e2e/webhook-receiver.ts';
import { type InProcessBridge, startInProcessBridge } from '../support/in-process-bridge.ts';
import { waitFor } from '../support/wait-for.ts';

/**
 * A real backfill through `change-bridge start`'s runtime in this process (dynalite, the SQS
 * emulator, the pollers and the dispatcher) against the simulator, with one verifying
 * subscriber; the CLI runs in-process against the admin API.
 */
describe('change-bridge backfill against a running bridge', () => {
  let sim: RunningSimulator;
  let started: InProcessBridge;
  let bridge: RunningBridge;
  let receiver: TestReceiver;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 23, size: 'small', rateLimit: false });
    receiver = await startTestReceiver();
    started = await startInProcessBridge(sim, {
      POLL_ENTITIES: 'customer',
      POLL_HISTORY_START: '400d',
    });
    bridge = started.bridge;
    await started.subscribe(receiver);
    // The first sync is a silent baseline (INITIAL_SYNC unset); the backfill comes after it.
    await waitFor(
      async () => {
        const response = await fetch(`${bridge.adminUrl}/streams`);
        const { streams } = (await response.json()) as { streams: { lastSuccessAt: unknown }[] };
        return streams.length > 0 && streams.every((s) => s.lastSuccessAt);
      },
      10_000,
      'the first sync',
      50,
    );
  }, 30_000);

  afterAll(async () => {
    await started?.close();
    await receiver?.close();
    await sim?.close();
  });

  it('reports records read, events published and webhooks delivered as NDJSON, and ends once every customer is delivered', async () => {
    const active = [...sim.controls.model.customers.all()].filter((e) => e.record.IsActive);
    expect(receiver.received).toHaveLength(0);
    sim.controls.clearRequestLog();

    const out: string[] = [];
    const code = await runCli(
      [
        'backfill',
        '--entities',
        'customer',
        '--emit',
        '--json',
        '--poll-interval',
        '100ms',
        '--api',
        bridge.adminUrl,
      ],
      { out: (text) => out.push(text), err: () => undefined },
    );
    expect(code).toBe(0);

    const samples = out.map((line) => BackfillJobViewSchema.parse(JSON.parse(line)));
    expect(samples.length).toBeGreaterThanOrEqual(2);
    expect(samples[0]).toMatchObject({ done: false, recordsRead: 0 });
    const last = samples.at(-1)!;
    expect(last).toMatchObject({ done: true, fraction: 1, etaSeconds: 0 });
    // The figures only grow from one sample to the next.
    for (const [index, sample] of samples.entries()) {
      const before = samples[index - 1];
      if (!before) continue;
      expect(sample.recordsRead).toBeGreaterThanOrEqual(before.recordsRead);
      expect(sample.eventsPublished).toBeGreaterThanOrEqual(before.eventsPublished);
      expect(sample.webhooksDelivered).toBeGreaterThanOrEqual(before.webhooksDelivered);
    }
    // Records read are records the connector answered with, every active customer among them;
    // every active customer was published at least once (overlapping windows may publish one
    // again, same id). Not exactly the log's sum: the ordinary poller keeps polling every
    // 500 ms, so a poll answered after the log was cleared but before the reset (or in flight
    // at the reset, whose save then loses to it), or after the last sample, is in the log and
    // rightly not in the job.
    const answered = sim.controls
      .requestLog()
      .filter((entry) => entry.operation === 'customers/getAll')
      .reduce((sum, entry) => sum + (entry.items ?? 0), 0);
    expect(last.recordsRead).toBeLessThanOrEqual(answered);
    expect(last.recordsRead).toBeGreaterThanOrEqual(active.length);
    expect(last.eventsPublished).toBeGreaterThanOrEqual(active.length);

    // The command ends once the webhooks are delivered, not when the reading is: the receiver
    // has every customer by then, and the last sample says so.
    const subjects = new Set(receiver.received.map((r) => r.subject));
    expect(subjects.size).toBe(active.length);
    expect(last).toMatchObject({ deliveryDone: true, webhooksLeft: 0, eventsQueued: 0 });
    expect(last.webhooksDelivered).toBe(receiver.received.length);
    // A sample between the end of the reading and the last delivery says what is left.
    for (const sample of samples.filter((s) => s.done && !s.deliveryDone)) {
      expect(sample.webhooksLeft + sample.eventsQueued).toBeGreaterThan(0);
    }
    expect(receiver.rejected).toBe(0);
  }, 30_000);
});
