import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseKnownFields } from '../../shared/simulator/unknown-fields.ts';

const Schema = z.strictObject({
  A: z.number(),
  Inner: z.strictObject({ B: z.string() }).optional(),
  Items: z.array(z.strictObject({ C: z.boolean() })).optional(),
});

describe('parseKnownFields', () => {
  it('leaves out the fields the schema does not name, at every depth, and parses the rest', () => {
    const sent = {
      A: 1,
      X: 'top',
      Inner: { B: 'b', Y: 2 },
      Items: [{ C: true }, { C: false, Z: [3] }],
    };
    const reading = parseKnownFields(Schema, sent);
    const known = { A: 1, Inner: { B: 'b' }, Items: [{ C: true }, { C: false }] };
    expect(reading.body).toEqual(known);
    expect(reading.result).toMatchObject({ success: true, data: known });
    expect(sent.Inner).toEqual({ B: 'b', Y: 2 });
  });

  it('keeps every other issue, without the unknown fields among them', () => {
    const reading = parseKnownFields(Schema, { A: 'one', X: 1, Items: [{ Z: 1 }] });
    expect(reading.body).toEqual({ A: 'one', Items: [{}] });
    expect(reading.result.error?.issues.map((issue) => [issue.code, issue.path])).toEqual([
      ['invalid_type', ['A']],
      ['invalid_type', ['Items', 0, 'C']],
    ]);
  });

  it('returns a body without unknown fields as it was given', () => {
    const sent = { A: 1 };
    expect(parseKnownFields(Schema, sent).body).toBe(sent);
  });
});
