import { describe, expect, it } from 'vitest';
import { recordJson } from '../../shared/changes/record-json.ts';
import { seededRandom } from '../../shared/clock.ts';
import { eventJson } from '../../shared/publish/event-json.ts';
import type { PublishableEvent } from '../../shared/publish/publishable-event.ts';
import { randomObject } from '../changes/json-generator.ts';

function eventOf(data: PublishableEvent['data'], subject = 'c1'): PublishableEvent {
  return {
    specversion: '1.0',
    id: 'evt_1',
    type: `customer.${data.change ?? 'updated'}`,
    source: 'connector/main',
    subject,
    time: '2026-03-10T09:00:00.123Z',
    datacontenttype: 'application/json',
    data,
  };
}

const PLACE = '\u0000change-bridge:current\u0000';

/** The text and bytes the event would have written whole. */
function whole(event: PublishableEvent) {
  const json = JSON.stringify(event);
  return { json, bytes: Buffer.byteLength(json, 'utf8') };
}

describe('eventJson', () => {
  it("is JSON.stringify's text of every kind of event, with its UTF-8 length", () => {
    const current = { Id: 'c1', LastName: 'Dvořák', Notes: 'say "hi"', Emoji: '🏨' };
    const previous = { Id: 'c1', LastName: 'Dvorak', Notes: null };
    const events = [
      eventOf({
        entityType: 'customer',
        entityId: 'c1',
        change: 'created',
        current,
        previous: null,
        changedFields: ['Id'],
        patch: [],
      }),
      eventOf({
        entityType: 'customer',
        entityId: 'c1',
        change: 'updated',
        current: { ...current },
        previous,
        changedFields: ['LastName'],
        patch: [{ op: 'replace', path: '/LastName', value: 'Dvořák' }],
      }),
      eventOf({
        entityType: 'customer',
        entityId: 'c1',
        change: 'deleted',
        current: null,
        previous,
        changedFields: [],
        patch: [],
      }),
      // Thin: no previous and patch, truncated after them.
      eventOf({
        entityType: 'customer',
        entityId: 'c1',
        change: 'updated',
        current: { ...current },
        changedFields: ['LastName'],
        truncated: true,
      }),
      // Operational: no current at all.
      eventOf({ subscriptionId: 'sub_1', reason: 'failing' }, undefined),
    ];
    for (const event of events) expect(eventJson(event)).toEqual(whole(event));
  });

  it('gives the record the text its snapshot then takes', () => {
    const current = { Id: 'c1', Email: 'a@example.com' };
    const event = eventOf({ entityType: 'customer', entityId: 'c1', change: 'created', current });
    const written = eventJson(event);
    expect(written.json).toContain(`"current":${recordJson(current).json}`);
    expect(written).toEqual(whole(event));
  });

  it("writes whole an event whose text holds the placeholder's member once more", () => {
    const inner = { Id: 'c1', Nested: { current: PLACE }, Plain: PLACE };
    const event = eventOf({
      entityType: 'customer',
      entityId: 'c1',
      change: 'updated',
      current: inner,
      previous: { current: PLACE },
    });
    expect(eventJson(event)).toEqual(whole(event));
    // A member before data.current holding it: found first, so the event is written whole.
    const scopeHoldsIt = eventOf({
      entityType: 'customer',
      entityId: 'c1',
      change: 'created',
      scope: { current: PLACE },
      current: { Id: 'c1' },
    });
    expect(eventJson(scopeHoldsIt)).toEqual(whole(scopeHoldsIt));
    const subjectHoldsIt = eventOf(
      {
        entityType: 'customer',
        entityId: `"current":"${PLACE}"`,
        change: 'created',
        current: { Id: 'c1' },
      },
      `"current":"${PLACE}"`,
    );
    expect(eventJson(subjectHoldsIt)).toEqual(whole(subjectHoldsIt));
  });

  it('matches JSON.stringify for random records', () => {
    const random = seededRandom(7);
    for (let i = 0; i < 300; i++) {
      const event = eventOf({
        entityType: 'customer',
        entityId: `c${i}`,
        change: 'updated',
        current: randomObject(random, 3),
        previous: randomObject(random, 3),
        changedFields: [],
        patch: [],
      });
      expect(eventJson(event)).toEqual(whole(event));
    }
  });
});
