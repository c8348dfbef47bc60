import { describe, expect, it } from 'vitest';
import {
  eventBridgeEntryBytes,
  sizedEventBridgeEntry,
} from '../../shared/publish/event-bridge-entry.ts';
import type { PublishableEvent } from '../../shared/publish/publishable-event.ts';

const event: PublishableEvent = {
  specversion: '1.0',
  id: 'evt_1',
  type: 'customer.created',
  source: 'connector/main',
  subject: 'c1',
  time: '2026-03-10T09:00:00.123Z',
  data: {
    entityType: 'customer',
    entityId: 'c1',
    change: 'created',
    scope: { chainId: 'chain-ü' },
    current: { Id: 'c1', LastName: 'Dvořák', Emoji: '🏨' },
    previous: null,
  },
};
const options = { source: 'change-bridge', eventBusName: 'default' };

describe('sizedEventBridgeEntry', () => {
  it('builds the PutEvents entry: the type, the whole event as Detail, its scope and entity as resources, the detection time', () => {
    const { entry } = sizedEventBridgeEntry(event, options);
    expect(entry).toEqual({
      Source: 'change-bridge',
      DetailType: 'customer.created',
      Detail: JSON.stringify(event),
      EventBusName: 'default',
      Resources: ['change-bridge:chain/chain-ü', 'change-bridge:entity/customer/c1'],
      Time: new Date('2026-03-10T09:00:00.123Z'),
    });
  });

  it('gives the sizes eventBridgeEntryBytes and the Detail count', () => {
    const { entry, bytes, detailBytes } = sizedEventBridgeEntry(event, options);
    expect(bytes).toBe(eventBridgeEntryBytes(entry));
    expect(detailBytes).toBe(Buffer.byteLength(entry.Detail!, 'utf8'));
  });
});
