import { describe, expect, it } from 'vitest';
import { streamsOfConnection } from '../../shared/connections/connection-streams.ts';
import {
  planConnectionJobs,
  planStoredConnectionJobs,
} from '../../shared/polling/plan-connections.ts';
import { pollSettingsFromEnv } from '../../shared/polling/poll-settings.ts';
import { initialStreamState } from '../../shared/polling/poll-stream.ts';
import type { StreamState } from '../../shared/state/state-store.ts';

const NOW = Date.UTC(2026, 10, 25, 8, 0, 0);
const settings = pollSettingsFromEnv({ POLL_INTERVAL: '1m' }, NOW);

function connection(id: string, entities?: ('customer' | 'resource' | 'accountNote')[]) {
  const definitions = streamsOfConnection({ id, ...(entities ? { entities } : {}) }, settings);
  return { connectionId: id, definitions };
}

function statesAt(
  connections: ReturnType<typeof connection>[],
  nextDueAt: (streamId: string) => number,
): Map<string, StreamState> {
  const states = new Map<string, StreamState>();
  for (const c of connections) {
    for (const d of c.definitions) {
      states.set(d.streamId, { ...initialStreamState(d, NOW), nextDueAt: nextDueAt(d.streamId) });
    }
  }
  return states;
}

describe('planning one poll job per connection', () => {
  it('makes one job for all eleven due streams of a hotel, not eleven jobs', () => {
    const hotel = connection('hotel-1');
    const jobs = planConnectionJobs([hotel], new Map(), NOW, 60_000);

    expect(hotel.definitions.length).toBeGreaterThan(10);
    expect(jobs).toEqual([
      {
        connectionId: 'hotel-1',
        streamIds: hotel.definitions.map((d) => d.streamId),
        delayMs: 0,
        dueBy: NOW + 60_000,
      },
    ]);
  });

  it('scales with connections: 1,000 hotels make 1,000 jobs', () => {
    const hotels = Array.from({ length: 1000 }, (_, index) => connection(`hotel-${index}`));
    expect(planConnectionJobs(hotels, new Map(), NOW, 60_000)).toHaveLength(1000);
  });

  it('delays a job to its earliest due stream and leaves out streams due after the lookahead', () => {
    const hotel = connection('hotel-1', ['customer', 'resource', 'accountNote']);
    const due = { 'hotel-1:customer': NOW + 20_000, 'hotel-1:resource': NOW + 45_000 };
    const states = statesAt([hotel], (id) => due[id as keyof typeof due] ?? NOW + 120_000);

    expect(planConnectionJobs([hotel], states, NOW, 60_000)).toEqual([
      {
        connectionId: 'hotel-1',
        streamIds: ['hotel-1:customer', 'hotel-1:resource'],
        delayMs: 20_000,
        dueBy: NOW + 60_000,
      },
    ]);
  });

  it('plans nothing for a connection whose streams are not yet due, parked or not', () => {
    const quiet = connection('quiet', ['customer']);
    const parked = connection('parked', ['customer']);
    const states = statesAt([quiet, parked], () => NOW + 600_000);
    states.set('parked:customer', { ...states.get('parked:customer')!, parked: true });

    expect(planConnectionJobs([quiet, parked], states, NOW, 60_000)).toEqual([]);
  });
});

describe('planning stored connections from their own next due time', () => {
  const streamIds = ['h:customer', 'h:resource'];

  it('plans a never-polled connection now and a due one delayed to its time, with every stream', () => {
    const jobs = planStoredConnectionJobs(
      [
        { connectionId: 'new', enabled: true, streamIds },
        { connectionId: 'soon', enabled: true, nextDueAt: NOW + 15_000, streamIds },
      ],
      NOW,
      60_000,
    );

    expect(jobs).toEqual([
      { connectionId: 'new', streamIds, delayMs: 0, dueBy: NOW + 60_000 },
      { connectionId: 'soon', streamIds, delayMs: 15_000, dueBy: NOW + 60_000 },
    ]);
  });

  it('plans the most overdue connections first, whatever their ids, so a cut-short run leaves out the least overdue', () => {
    const jobs = planStoredConnectionJobs(
      [
        { connectionId: 'a', enabled: true, nextDueAt: NOW + 10_000, streamIds },
        { connectionId: 'b', enabled: true, streamIds },
        { connectionId: 'c', enabled: true, nextDueAt: NOW - 120_000, streamIds },
        { connectionId: 'd', enabled: true, nextDueAt: NOW - 60_000, streamIds },
        { connectionId: 'e', enabled: true, nextDueAt: NOW - 120_000, streamIds },
      ],
      NOW,
      60_000,
    );

    // b, never polled, first: see the planner handler test of runs cut short run after run.
    expect(jobs.map((job) => job.connectionId)).toEqual(['b', 'c', 'e', 'd', 'a']);
  });

  it('plans nothing for a disabled connection or one due after the lookahead', () => {
    const jobs = planStoredConnectionJobs(
      [
        { connectionId: 'off', enabled: false, streamIds },
        { connectionId: 'later', enabled: true, nextDueAt: NOW + 90_000, streamIds },
      ],
      NOW,
      60_000,
    );
    expect(jobs).toEqual([]);
  });
});
