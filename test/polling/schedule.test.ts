import { describe, expect, it } from 'vitest';
import type { StreamDefinition } from '../../shared/polling/poll-context.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../shared/polling/poll-settings.ts';
import { initialStreamState } from '../../shared/polling/poll-stream.ts';
import {
  dueStreams,
  failureBackoffMs,
  nextDueTime,
  streamPhaseMs,
} from '../../shared/polling/schedule.ts';
import { customerSpec } from '../../shared/polling/specs/customer.ts';

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
    expect([0, 1, 2, 3].map((index) => streamPhaseMs(index, 4, 60_000))).toEqual([
      0, 15_000, 30_000, 45_000,
    ]);
    expect(streamPhaseMs(3, 4, 5_000)).toBe(0);
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

  it('backs off by doubling the interval up to 30 minutes', () => {
    expect(failureBackoffMs(1, 60_000)).toBe(60_000);
    expect(failureBackoffMs(3, 60_000)).toBe(240_000);
    expect(failureBackoffMs(10, 60_000)).toBe(30 * 60_000);
  });
});
