import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  EVENT_ID_PATTERN,
  eventId,
  hashEventId,
  hashedId,
  hashedIdPattern,
} from '../../shared/changes/event-id.ts';

const parts = {
  connectionId: 'main',
  entityType: 'customer',
  entityId: '6a1f7d9e-0000-4000-8000-000000000001',
  change: 'updated',
  contentHash: createHash('sha256').update('record').digest('hex'),
} as const;

describe('eventId', () => {
  it('is evt_ and 26 uppercase Crockford base32 characters', () => {
    const id = eventId(parts);
    expect(id).toMatch(EVENT_ID_PATTERN);
    expect(id).toHaveLength(30);
  });

  it('is the same for the same inputs', () => {
    expect(eventId({ ...parts })).toBe(eventId(parts));
  });

  it('differs when any single part differs', () => {
    const variants = [
      { ...parts, connectionId: 'other' },
      { ...parts, entityType: 'resource' as const },
      { ...parts, entityId: '6a1f7d9e-0000-4000-8000-000000000002' },
      { ...parts, change: 'deleted' as const },
      { ...parts, change: 'snapshot' as const },
      { ...parts, contentHash: createHash('sha256').update('other').digest('hex') },
    ];
    const ids = new Set([eventId(parts), ...variants.map((variant) => eventId(variant))]);
    expect(ids.size).toBe(variants.length + 1);
  });

  it('is distinct over many entities', () => {
    const ids = new Set(
      Array.from({ length: 5000 }, (_, index) => eventId({ ...parts, entityId: `id-${index}` })),
    );
    expect(ids.size).toBe(5000);
  });
});

describe('hashEventId', () => {
  it('length-prefixes parts so that moving a separator changes the id', () => {
    expect(hashEventId(['a:b', 'c'])).not.toBe(hashEventId(['a', 'b:c']));
    expect(hashEventId(['ab', ''])).not.toBe(hashEventId(['a', 'b']));
    expect(hashEventId(['1:a'])).not.toBe(hashEventId(['a']));
  });

  it('encodes the leading 130 bits of the digest in Crockford base32', () => {
    const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
    const digest = createHash('sha256').update('1:x').digest();
    const bits = [...digest].map((byte) => byte.toString(2).padStart(8, '0')).join('');
    const expected = Array.from(
      { length: 26 },
      (_, index) => alphabet[Number.parseInt(bits.slice(index * 5, index * 5 + 5), 2)],
    ).join('');
    expect(hashEventId(['x'])).toBe(`evt_${expected}`);
  });
});

describe('hashedId', () => {
  it('is the prefix and the characters of the event id of the same parts, of its pattern only', () => {
    const id = hashedId('bf_', ['backfill/v1', '1', '0.5']);
    expect(id).toBe(`bf_${hashEventId(['backfill/v1', '1', '0.5']).slice('evt_'.length)}`);
    expect(id).toMatch(hashedIdPattern('bf_'));
    expect(id).not.toMatch(hashedIdPattern('sub_'));
    expect(`${id}0`).not.toMatch(hashedIdPattern('bf_'));
    expect(hashedIdPattern('evt_').source).toBe(EVENT_ID_PATTERN.source);
  });
});

describe('event ids of published events', () => {
  it('stay what they were (receivers deduplicate on them across upgrades)', () => {
    const hex = (c: string) => c.repeat(64);
    expect(eventId({ ...parts, entityId: 'c1', change: 'updated', contentHash: hex('a') })).toBe(
      'evt_FCQYRATH3A8DFQX8N5SZFHKNRC',
    );
    expect(
      eventId({
        connectionId: 'hôtel',
        entityType: 'customer',
        entityId: 'Иванова-😀',
        change: 'created',
        contentHash: hex('b'),
        previousVersion: 1700000000000,
      }),
    ).toBe('evt_R7DCWS1H0S4G5EDK0S36HMCYEF');
    expect(
      eventId({
        connectionId: 'main',
        entityType: 'resource',
        entityId: 'r1',
        change: 'deleted',
        contentHash: hex('c'),
        previousVersion: 1,
        backfillId: 'job-1',
      }),
    ).toBe('evt_T8HKC212QEFG3M27F0A5AVX452');
    expect(hashEventId(['ping', 'sub_1', '2026-01-01T00:00:00.000Z'])).toBe(
      'evt_ZNW07JHG42CFAR18C1A536H8GA',
    );
    expect(hashEventId([])).toBe('evt_WERC8GMRZGE196QVYK49JVXS4G');
  });
});
