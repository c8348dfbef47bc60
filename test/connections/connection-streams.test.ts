import { describe, expect, it } from 'vitest';
import { enabledConnectionStreams } from '../../shared/connections/connection-streams.ts';
import { MemoryConnectionStore } from '../../shared/connections/memory-connection-store.ts';
import { pollSettingsFromEnv } from '../../shared/polling/poll-settings.ts';
import { storedConnection } from './connection-store.contract.ts';

describe('enabledConnectionStreams', () => {
  it("lists every enabled connection's streams across pages, none of a disabled one", async () => {
    const store = new MemoryConnectionStore();
    for (let i = 0; i < 150; i++) {
      await store.create(
        storedConnection(`hotel-${String(i).padStart(3, '0')}`, {
          entities: ['customer', 'resource'],
          enabled: i !== 7,
        }),
      );
    }
    const settings = pollSettingsFromEnv({}, Date.UTC(2026, 0, 1));

    const streams = await enabledConnectionStreams(store, settings);

    expect(streams).toHaveLength(149 * 2);
    expect(streams.map((s) => s.streamId)).toContain('hotel-149:resource');
    expect(streams.some((s) => s.connectionId === 'hotel-007')).toBe(false);
  });
});
