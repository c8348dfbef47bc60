import { describe, expect, it } from 'vitest';
import { recordJson } from '../../shared/changes/record-json.ts';

describe('recordJson', () => {
  it("is JSON.stringify's text and its UTF-8 length, beyond Latin-1 too", () => {
    const record = {
      Id: 'c-1',
      LastName: 'Dvořák',
      Notes: 'say "hi"\n',
      Emoji: '🏨',
      Gone: undefined,
    };
    const sized = recordJson(record);
    expect(sized.json).toBe(JSON.stringify(record));
    expect(sized.bytes).toBe(Buffer.byteLength(JSON.stringify(record), 'utf8'));
  });

  it('writes a record once: a second call gives the first text', () => {
    const record = { Id: 'c-1' };
    const first = recordJson(record);
    expect(recordJson(record)).toBe(first);
    // Another object of the same content is written for itself.
    expect(recordJson({ Id: 'c-1' })).not.toBe(first);
    expect(recordJson({ Id: 'c-1' })).toEqual(first);
  });

  it('throws what JSON.stringify throws, and keeps nothing', () => {
    const record = { Count: 1n };
    expect(() => recordJson(record)).toThrow(TypeError);
    expect(() => recordJson(record)).toThrow(TypeError);
  });
});
