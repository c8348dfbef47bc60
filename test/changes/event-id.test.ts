import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EVENT_ID_PATTERN, eventId, hashEventId } from '../../shared/changes/event-id.ts';

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
