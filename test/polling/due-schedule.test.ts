import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../shared/clock.ts';
import { DueSchedule } from '../../shared/polling/due-schedule.ts';
import { pollSettingsFromEnv, streamDefinitions } from '../../shared/polling/poll-settings.ts';
import { initialStreamState } from '../../shared/polling/poll-stream.ts';
import { dueStreams } from '../../shared/polling/schedule.ts';
import type { StreamState } from '../../shared/state/state-store.ts';

const T0 = Date.UTC(2026, 10, 25, 8, 0, 0);

describe('DueSchedule', () => {
  it('gives the streams dueStreams gives, in its order, as states change one by one', () => {
    const random = seededRandom(11);
    const settings = pollSettingsFromEnv({ POLL_ENTITIES: 'customer,resource,accountNote' }, T0);
    const definitions = Array.from({ length: 60 }, (_, i) =>
      streamDefinitions(`hotel-${i}`, settings),
    ).flat();
    const states = new Map<string, StreamState>();
    const schedule = new DueSchedule({
      stateOf: (streamId) => states.get(streamId),
      readyAt: (_streamId, dueAt) => dueAt,
    });
    schedule.sync(definitions);
    let longest = 0;
    for (let step = 0; step < 2_000; step++) {
      const definition = definitions[Math.floor(random() * definitions.length)]!;
      const roll = random();
      if (roll < 0.1) states.delete(definition.streamId);
      else {
        // Due times on a coarse grid, so many tie and the list's order decides.
        const at = T0 + Math.floor(random() * 20) * 10_000;
        const polled = roll < 0.6 ? at - Math.floor(random() * 3) * 60_000 : null;
        states.set(definition.streamId, {
          ...initialStreamState(definition, T0),
          initialSyncDone: true,
          lastPollAt: polled,
          nextDueAt: at,
          consecutiveFailures: roll > 0.9 ? 2 : 0,
        });
      }
      schedule.update(definition.streamId);
      const now = T0 + Math.floor(random() * 24) * 10_000;
      const due = schedule.due(now).map((d) => d.streamId);
      expect(due).toEqual(dueStreams(definitions, states, now).map((d) => d.streamId));
      longest = Math.max(longest, due.length);
    }
    // Not a walk of empty lists: at times most of the 180 streams are due together.
    expect(longest).toBeGreaterThan(100);
  });

  it('follows a new definitions list and reports the streams new to it', () => {
    const settings = pollSettingsFromEnv({ POLL_ENTITIES: 'customer' }, T0);
    const first = ['a', 'b'].flatMap((id) => streamDefinitions(id, settings));
    const schedule = new DueSchedule({ stateOf: () => undefined, readyAt: (_id, dueAt) => dueAt });
    expect(schedule.sync(first)).toEqual([]);
    expect(schedule.sync(first)).toEqual([]);
    const second = ['b', 'c'].flatMap((id) => streamDefinitions(id, settings));
    expect(schedule.sync(second).map((d) => d.streamId)).toEqual(['c:customer']);
    expect(schedule.due(T0).map((d) => d.streamId)).toEqual(['b:customer', 'c:customer']);
  });
});
