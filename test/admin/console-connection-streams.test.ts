import { describe, expect, it } from 'vitest';
import { streamsSummaries } from '../../shared/admin/console/connection-streams.js';

function stream(connectionId: string, extra: Record<string, unknown> = {}) {
  return {
    connectionId,
    configured: true,
    parked: false,
    consecutiveFailures: 0,
    initialSyncDone: true,
    ...extra,
  };
}

describe("the console's summary of a connection's streams", () => {
  it('counts each connection’s streams by where they stand, naming only the states some are in', () => {
    const summaries = streamsSummaries([
      stream('local'),
      stream('local', { parked: true }),
      stream('local'),
      stream('chain', { consecutiveFailures: 2 }),
      stream('chain', { initialSyncDone: false }),
      stream('chain', { configured: false, parked: true }),
    ]);
    expect(summaries.get('local')).toBe('3 streams: 2 ok, 1 parked');
    expect(summaries.get('chain')).toBe('3 streams: 1 failing, 1 first sync, 1 not polled');
    expect(summaries.get('other')).toBeUndefined();
  });

  it('says one stream in the singular', () => {
    expect(streamsSummaries([stream('local')]).get('local')).toBe('1 stream: 1 ok');
  });
});
