import { describe, expect, it } from 'vitest';
import {
  enabledConnectionStreams,
  streamsOfConnection,
} from '../../shared/connections/connection-streams.ts';
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

describe('streamsOfConnection with a Portfolio Access Token', () => {
  const settings = pollSettingsFromEnv({}, Date.UTC(2026, 0, 1));
  const portfolioScope = { chainIds: ['4d0201db-36f6-4ad5-8b0b-1a7fa9e8a5c2'], enterpriseIds: [] };

  it('leaves out the entity types the token cannot read (image assignments, tax environments)', () => {
    const ids = (connection: Parameters<typeof streamsOfConnection>[0]) =>
      streamsOfConnection(connection, settings).map((s) => s.spec.entityType);
    const all = ids({ id: 'hotel' });
    expect(all).toContain('taxEnvironment');
    expect(all).toContain('resourceCategoryImageAssignment');

    const portfolio = ids({ id: 'group', portfolioScope });
    expect(portfolio).toEqual(
      all.filter((t) => t !== 'taxEnvironment' && t !== 'resourceCategoryImageAssignment'),
    );
    expect(ids({ id: 'group', portfolioScope, entities: ['customer', 'taxEnvironment'] })).toEqual([
      'customer',
    ]);
  });
});
