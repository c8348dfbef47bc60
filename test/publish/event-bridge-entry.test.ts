import { describe, expect, it } from 'vitest';
import {
  eventBridgeEntryBytes,
  sizedEventBridgeEntry,
  toEventBridgeEntry,
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
  it('is the entry toEventBridgeEntry builds, its Detail the whole event', () => {
    const { entry } = sizedEventBridgeEntry(event, options);
    expect(entry).toEqual(toEventBridgeEntry(event, options));
    expect(entry.Detail).toBe(JSON.stringify(event));
  });

  it('gives the sizes eventBridgeEntryBytes and the Detail count', () => {
    const { entry, bytes, detailBytes } = sizedEventBridgeEntry(event, options);
    expect(bytes).toBe(eventBridgeEntryBytes(entry));
    expect(detailBytes).toBe(Buffer.byteLength(entry.Detail!, 'utf8'));
  });
});
