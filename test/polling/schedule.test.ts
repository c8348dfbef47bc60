import { describe, expect, it } from 'vitest';
import type { StreamDefinition } from '../../shared/polling/poll-context.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../shared/polling/poll-settings.ts';
import { initialStreamState } from '../../shared/polling/poll-stream.ts';
import {
  dueStreams,
  failureBackoffMs,
  nextDueTime,
  streamDueAt,
} from '../../shared/polling/schedule.ts';
import { customerSpec } from '../../shared/polling/specs/customer.ts';
import { streamPhasesMs } from '../../shared/polling/stream-phase.ts';

function definition(streamId: string): StreamDefinition {
  return {
    streamId,
    connectionId: 'main',
    spec: customerSpec,
    scope: {},
    intervalMs: 60_000,
    initialSync: 'baseline',
  };
}

describe('stream schedule', () => {
  it('spreads the streams of minute-scale intervals evenly and keeps short ones unphased', () => {
    expect(streamPhasesMs([1, 1, 1, 1], [60_000, 60_000, 60_000, 60_000])).toEqual([
      0, 15_000, 30_000, 45_000,
    ]);
    expect(streamPhasesMs([1, 1, 1, 1], [60_000, 60_000, 60_000, 5_000])[3]).toBe(0);
  });

  it('gives each stream of a connection its own phase', () => {
    const settings = pollSettingsFromEnv({ POLL_INTERVAL: '1m' }, 0);
    const phases = streamDefinitions('main', settings).map((d) => d.phaseMs ?? 0);
    expect(new Set(phases).size).toBe(phases.length);
    expect(Math.max(...phases)).toBeLessThan(60_000);
  });

  it('is due again at the next phase slot at least half an interval away, whatever the start delay', () => {
    expect(nextDueTime(125_000, 60_000, 5_000)).toBe(185_000);
    expect(nextDueTime(126_500, 60_000, 5_000)).toBe(185_000);
    expect(nextDueTime(125_000, 5_000, 0)).toBe(130_000);
  });

  it('looks ahead for the planner; a parked stream is due at its time like any other', () => {
    const now = 1_000_000;
    const soon = { ...initialStreamState(definition('main:a'), now), nextDueAt: now + 20_000 };
    // Its poll asks the connector nothing unless the credentials changed (pollStream).
    const parked = { ...initialStreamState(definition('main:b'), now), parked: true };
    const parkedLater = {
      ...initialStreamState(definition('main:d'), now),
      parked: true,
      nextDueAt: now + 600_000,
    };
    const states = new Map([
      ['main:a', soon],
      ['main:b', parked],
      ['main:d', parkedLater],
    ]);
    const definitions = ['main:a', 'main:b', 'main:c', 'main:d'].map(definition);
    expect(dueStreams(definitions, states, now).map((d) => d.streamId)).toEqual([
      'main:c',
      'main:b',
    ]);
    expect(dueStreams(definitions, states, now, 60_000).map((d) => d.streamId)).toEqual([
      'main:c',
      'main:b',
      'main:a',
    ]);
  });

  it('brings a kept due time forward to the current interval after the last poll (a connection re-added with a shorter interval)', () => {
    const now = 1_000_000;
    // Polled 5 s ago under a 1 minute interval, then re-added with --keep-state and 10 s.
    const kept = {
      ...initialStreamState(definition('main:a'), now),
      lastPollAt: now - 5_000,
      nextDueAt: now + 55_000,
    };
    const shorter = { ...definition('main:a'), intervalMs: 10_000 };

    expect(streamDueAt(shorter, kept)).toBe(now + 5_000);
    expect(dueStreams([shorter], new Map([['main:a', kept]]), now + 4_999)).toEqual([]);
    expect(dueStreams([shorter], new Map([['main:a', kept]]), now + 5_000)).toEqual([shorter]);
  });

  it('keeps the stored due time of an unchanged phased stream, a failure backoff and a parked stream', () => {
    const now = 1_000_000;
    const base = initialStreamState(definition('main:a'), now);
    const phased = { ...definition('main:a'), phaseMs: 5_000 };
    // Its phase slot lies 85 s after the poll: a clamp to one interval would move it.
    const slot = nextDueTime(100_000, 60_000, 5_000);
    expect(slot).toBe(185_000);
    expect(streamDueAt(phased, { ...base, lastPollAt: 100_000, nextDueAt: slot })).toBe(slot);

    const shorter = { ...definition('main:a'), intervalMs: 10_000 };
    const backingOff = {
      ...base,
      lastPollAt: now,
      consecutiveFailures: 3,
      nextDueAt: now + failureBackoffMs(3, 60_000),
    };
    expect(streamDueAt(shorter, backingOff)).toBe(now + 240_000);
    const parked = { ...base, lastPollAt: now - 600_000, parked: true, nextDueAt: now + 60_000 };
    expect(streamDueAt(shorter, parked)).toBe(now + 60_000);
  });

  it('backs off by doubling the interval up to 30 minutes', () => {
    expect(failureBackoffMs(1, 60_000)).toBe(60_000);
    expect(failureBackoffMs(3, 60_000)).toBe(240_000);
    expect(failureBackoffMs(10, 60_000)).toBe(30 * 60_000);
  });
});
