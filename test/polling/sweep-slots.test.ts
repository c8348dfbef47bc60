import { describe, expect, it } from 'vitest';
import type { StreamDefinition } from '../../shared/polling/poll-context.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../shared/polling/poll-settings.ts';
import { nextSweepAt, stableFraction, sweepIntervalOf } from '../../shared/polling/sweep-slots.ts';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/** Every instant of `[0, spanMs)` at which one of `definitions` may sweep, sorted. */
function sweepInstants(definitions: readonly StreamDefinition[], spanMs: number): number[] {
  const instants: number[] = [];
  for (const { sweepSlots } of definitions) {
    if (!sweepSlots) continue;
    for (let at = sweepSlots.phaseMs; at < spanMs; at += sweepSlots.everyMs) instants.push(at);
  }
  return instants.sort((a, b) => a - b);
}

function smallestGap(sorted: readonly number[]): number {
  return Math.min(...sorted.slice(1).map((at, i) => at - sorted[i]!));
}

describe('nextSweepAt', () => {
  const slots = { everyMs: 5 * MINUTE_MS, phaseMs: 30_000 };
  const periodMs = 15 * MINUTE_MS;

  it('is within one period of the last sweep or first sync, and never within half of it', () => {
    for (let last = 0; last < 2 * periodMs; last += 7_000) {
      const next = nextSweepAt(last, periodMs, slots);
      expect(next - last).toBeGreaterThan(periodMs / 2);
      expect(next - last).toBeLessThanOrEqual(periodMs);
      expect((next - slots.phaseMs) % slots.everyMs).toBe(0);
    }
  });

  it('keeps a sweep that ran late on its slot', () => {
    const slot = slots.phaseMs + 4 * slots.everyMs;
    for (const lateMs of [0, 1_000, 59_000, slots.everyMs - 1])
      expect(nextSweepAt(slot + lateMs, periodMs, slots)).toBe(slot + periodMs);
  });
});

describe('sweepSlotsOf', () => {
  it('gives the streams that sweep their slots, on their own polls', () => {
    for (const env of [{}, { POLL_INTERVAL: '1m' }, { POLL_INTERVAL: '5m' }]) {
      const definitions = streamDefinitions('main', pollSettingsFromEnv(env, 0));
      for (const definition of definitions) {
        const periodMs = sweepIntervalOf(definition.spec);
        expect(definition.sweepSlots === undefined).toBe(periodMs === undefined);
        if (!definition.sweepSlots || periodMs === undefined) continue;
        const { everyMs, phaseMs } = definition.sweepSlots;
        expect(periodMs % everyMs).toBe(0);
        expect(everyMs).toBeLessThanOrEqual(periodMs / 2);
        expect((phaseMs - (definition.phaseMs ?? 0)) % definition.intervalMs).toBe(0);
      }
    }
  });

  it("keeps a connection's sweeps at least 30 s apart, whenever its streams were synced", () => {
    for (const env of [{ POLL_INTERVAL: '1m' }, { POLL_INTERVAL: '1s' }])
      for (const connectionId of ['main', 'sim', 'hotel-7', 'c0ffee']) {
        const definitions = streamDefinitions(connectionId, pollSettingsFromEnv(env, 0));
        expect(smallestGap(sweepInstants(definitions, 4 * HOUR_MS))).toBeGreaterThanOrEqual(30_000);
      }
  });

  it('places the sweeps of different connections differently, the same way each time', () => {
    const settings = pollSettingsFromEnv({ POLL_INTERVAL: '1m' }, 0);
    const placed = (id: string) => sweepInstants(streamDefinitions(id, settings), HOUR_MS).join();
    const ids = Array.from({ length: 20 }, (_, i) => `connection-${i}`);
    expect(new Set(ids.map(placed)).size).toBeGreaterThan(5);
    expect(ids.map(placed)).toEqual(ids.map(placed));
  });
});

describe('stableFraction', () => {
  it('maps text to [0, 1), the same for the same text', () => {
    const fractions = ['a', 'b', 'main:customer', 'main:resource'].map(stableFraction);
    for (const f of fractions) expect(f >= 0 && f < 1).toBe(true);
    expect(new Set(fractions).size).toBe(4);
    expect(stableFraction('main:customer')).toBe(fractions[2]);
  });

  it('gives the fractions of earlier releases: sweep slots stay where they were', () => {
    const earlier: Array<[string, number]> = [
      ['', 0.5043428998906165],
      ['a', 0.8908105595037341],
      ['main:customer', 0.6766108493320644],
      ['connection-7:reservation', 0.2785730913747102],
      ['hôtel-🏨', 0.4213761587161571],
    ];
    for (const [text, fraction] of earlier) expect(stableFraction(text)).toBe(fraction);
  });
});
