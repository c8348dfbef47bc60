import { describe, expect, it } from 'vitest';
import {
  HELD_STORE_PROBE_MS,
  HeldStreamProbe,
  type ReleasableHold,
} from '../../shared/polling/held-stream-probe.ts';

const T0 = Date.UTC(2026, 10, 25, 8, 0, 0);

/**
 * A probe over streams held until `retryAfter` (ms after T0, by stream id), whose writes the test
 * answers one by one (`answer`), at the time it sets (`at`, ms after T0).
 */
function probeOver(retryAfter: Record<string, number>, probing = true) {
  let now = T0;
  const held = new Map<string, ReleasableHold>();
  const hold = (streamId: string, after: number) =>
    held.set(streamId, { streamId, retryAt: T0 + after });
  for (const [streamId, after] of Object.entries(retryAfter)) hold(streamId, after);
  const writes: { resolve: () => void; reject: (error: Error) => void }[] = [];
  const released: string[] = [];
  const writable: number[] = [];
  const probe = new HeldStreamProbe({
    probeWrites: probing
      ? () => new Promise<void>((resolve, reject) => writes.push({ resolve, reject }))
      : undefined,
    held,
    clock: { now: () => now },
    onReleased: (streamId) => released.push(streamId),
    onStoreWritable: (count) => writable.push(count),
  });
  /** Answers the probe in flight: its write goes through or is refused. */
  const answer = async (goesThrough: boolean) => {
    const inFlight = probe.inFlight();
    const write = writes.at(-1)!;
    if (goesThrough) write.resolve();
    else write.reject(new Error('DynamoDB PutItem on table t failed: No space left on device'));
    await expect(inFlight).resolves.toBeUndefined();
  };
  const at = (ms: number) => {
    now = T0 + ms;
  };
  return { probe, held, hold, writes, released, writable, answer, at };
}

describe('the held-stream probe', () => {
  it('probes once for the holds made before it, and again only for a new hold', async () => {
    const { probe, writes, answer } = probeOver({ a: 1_000, b: 1_000 });
    probe.countHold();
    probe.countHold();
    probe.probeIfDue();
    expect(writes).toHaveLength(1);
    await answer(true);
    probe.probeIfDue();
    expect(writes).toHaveLength(1);
    probe.countHold();
    probe.probeIfDue();
    expect(writes).toHaveLength(2);
  });

  it('runs one probe at a time, and covers a hold made meanwhile with the next', async () => {
    const { probe, writes, answer } = probeOver({ a: 1_000 });
    probe.countHold();
    probe.probeIfDue();
    probe.countHold();
    probe.probeIfDue();
    expect(writes).toHaveLength(1);
    await answer(true);
    probe.probeIfDue();
    expect(writes).toHaveLength(2);
  });

  it('probes nothing without a probe write, without held streams, or before any hold', () => {
    const unprobed = probeOver({ a: 1_000 }, false);
    unprobed.probe.countHold();
    unprobed.probe.probeIfDue();
    expect(unprobed.probe.inFlight()).toBeUndefined();
    const noneHeld = probeOver({});
    noneHeld.probe.countHold();
    noneHeld.probe.probeIfDue();
    expect(noneHeld.writes).toHaveLength(0);
    const noHold = probeOver({ a: 1_000 });
    noHold.probe.probeIfDue();
    expect(noHold.writes).toHaveLength(0);
  });

  it('after a refused probe, probes again HELD_STORE_PROBE_MS later, new hold or not', async () => {
    const { probe, writes, answer, at } = probeOver({ a: 60_000 });
    probe.countHold();
    probe.probeIfDue();
    at(100);
    await answer(false);
    at(100 + HELD_STORE_PROBE_MS - 1);
    probe.countHold();
    probe.probeIfDue();
    expect(writes).toHaveLength(1);
    at(100 + HELD_STORE_PROBE_MS);
    probe.probeIfDue();
    expect(writes).toHaveLength(2);
  });

  it('takes a probe write that throws before its promise as refused, and probes again later', async () => {
    let now = T0;
    let calls = 0;
    const probe = new HeldStreamProbe({
      probeWrites: () => {
        calls += 1;
        throw new Error('DynamoDB PutItem on table t failed: No space left on device');
      },
      held: new Map([['a', { streamId: 'a', retryAt: T0 + 60_000 }]]),
      clock: { now: () => now },
      onReleased: () => undefined,
    });
    probe.countHold();
    expect(() => probe.probeIfDue()).not.toThrow();
    await expect(probe.inFlight()).resolves.toBeUndefined();
    now = T0 + HELD_STORE_PROBE_MS;
    probe.probeIfDue();
    expect(calls).toBe(2);
  });

  it('makes every held stream due at once when a probe goes through after a refused one', async () => {
    const { probe, held, hold, released, writable, answer, at } = probeOver({
      a: 60_000,
      due: 1_000,
    });
    probe.countHold();
    probe.probeIfDue();
    await answer(false);
    // Held since the refusal, by a backoff that reached 30 minutes: released too.
    hold('b', 1_800_000);
    at(HELD_STORE_PROBE_MS);
    probe.probeIfDue();
    await answer(true);
    expect(released).toEqual(['a', 'b']);
    expect(writable).toEqual([2]);
    expect(held.get('a')?.retryAt).toBe(T0 + HELD_STORE_PROBE_MS);
    expect(held.get('b')?.retryAt).toBe(T0 + HELD_STORE_PROBE_MS);
    expect(held.get('due')?.retryAt).toBe(T0 + 1_000);
  });

  it('releases nothing when a probe goes through and none before was refused', async () => {
    const { probe, held, released, writable, answer } = probeOver({ a: 60_000 });
    probe.countHold();
    probe.probeIfDue();
    await answer(true);
    expect(released).toEqual([]);
    expect(writable).toEqual([]);
    expect(held.get('a')?.retryAt).toBe(T0 + 60_000);
  });
});
