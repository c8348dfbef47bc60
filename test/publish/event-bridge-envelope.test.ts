import { describe, expect, it } from 'vitest';
import { sizedEventBridgeEntry } from '../../shared/publish/event-bridge-entry.ts';
import {
  EventBridgeEnvelopeSchema,
  toEventBridgeEnvelope,
} from '../../shared/publish/event-bridge-envelope.ts';
import type { PublishableEvent } from '../../shared/publish/publishable-event.ts';

const event: PublishableEvent = {
  specversion: '1.0',
  id: 'evt_1',
  type: 'customer.updated',
  source: 'connector/main',
  subject: 'c1',
  time: '2026-03-10T09:00:00.123Z',
  data: {
    entityType: 'customer',
    entityId: 'c1',
    change: 'updated',
    current: { Id: 'c1', Notes: 'say "hi"', Emoji: 'ü' },
    previous: { Id: 'c1', Notes: null },
    changedFields: ['Notes'],
  },
};

describe('toEventBridgeEnvelope', () => {
  const { entry } = sizedEventBridgeEntry(event, {
    source: 'change-bridge',
    eventBusName: 'default',
  });
  const context = {
    id: '7f9c2b1e-0000-4000-8000-000000000001',
    account: '000000000000',
    region: 'us-east-1',
    receivedAt: new Date('2026-03-10T09:00:05.000Z'),
  };

  it('writes the body EventBridge hands to an SQS target, with the Detail text as its detail', () => {
    const { envelope, body } = toEventBridgeEnvelope(entry, event, context);
    expect(JSON.parse(body)).toEqual(envelope);
    expect(EventBridgeEnvelopeSchema.parse(JSON.parse(body))).toEqual(envelope);
    expect(body.endsWith(`,"detail":${entry.Detail}}`)).toBe(true);
    expect(envelope).toMatchObject({
      version: '0',
      id: context.id,
      'detail-type': 'customer.updated',
      source: 'change-bridge',
      // The entry's Time (the event's), to the second, as EventBridge writes it.
      time: '2026-03-10T09:00:00Z',
      detail: event,
    });
  });

  it("counts the body's UTF-8 bytes, from the Detail's size when given", () => {
    const detailBytes = Buffer.byteLength(entry.Detail!, 'utf8');
    for (const delivered of [
      toEventBridgeEnvelope(entry, event, context),
      toEventBridgeEnvelope(entry, event, context, detailBytes),
    ])
      expect(delivered.bodyBytes).toBe(Buffer.byteLength(delivered.body, 'utf8'));
  });

  it('takes the receipt time when the entry has none', () => {
    const { envelope } = toEventBridgeEnvelope({ ...entry, Time: undefined }, event, context);
    expect(envelope.time).toBe('2026-03-10T09:00:05Z');
  });
});
