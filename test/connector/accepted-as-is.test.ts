import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { acceptedAsIs } from '../../shared/connector/accepted-as-is.ts';
import { OPERATION_NAMES, OPERATIONS } from '../../shared/connector/operations.ts';
import { CustomerSchema } from '../../shared/connector/records/customer.ts';
import { SAMPLE_CUSTOMER, SAMPLE_RESPONSES } from './fixtures.ts';

const json = (value: unknown) => JSON.parse(JSON.stringify(value));

/** Every value a JSON tree can be bent into at one place: left out, retyped, emptied, widened. */
function* mutations(value: unknown): Generator<unknown> {
  const replacements = [null, 0, -1.5, 'x', '', 'not-a-guid', true, {}, [], { Novelty: 1 }];
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      for (const inner of mutations(value[i]))
        yield value.map((item, at) => (at === i ? inner : item));
      yield value.filter((_, at) => at !== i);
    }
    for (const replacement of replacements) yield [...value, replacement];
    return;
  }
  if (typeof value === 'object' && value !== null) {
    const object = value as Record<string, unknown>;
    for (const key of Object.keys(object)) {
      const { [key]: _left, ...rest } = object;
      yield rest;
      for (const inner of mutations(object[key])) yield { ...object, [key]: inner };
    }
    yield { ...object, Novelty: { Since: 'v2' } };
    // JSON.parse makes `__proto__` an own member, which zod leaves out of its copy.
    const rest = JSON.stringify(object).slice(1);
    yield JSON.parse(`{"__proto__":{"x":1}${rest === '}' ? '' : ','}${rest}`);
    return;
  }
  for (const replacement of replacements) if (replacement !== value) yield replacement;
}

describe('acceptedAsIs', () => {
  it('never takes a value as it is where zod would refuse it or give back something else', () => {
    let taken = 0;
    let checked = 0;
    for (const name of OPERATION_NAMES) {
      const schema = OPERATIONS[name].response;
      for (const variant of mutations(json(SAMPLE_RESPONSES[name]))) {
        checked++;
        if (!acceptedAsIs(schema, variant)) continue;
        taken++;
        const parsed = schema.safeParse(variant);
        expect(parsed.success, `${name}: ${JSON.stringify(variant).slice(0, 200)}`).toBe(true);
        expect(parsed.data).toStrictEqual(variant);
      }
    }
    // The check is not vacuous: many variants are taken, many are not.
    expect(taken).toBeGreaterThan(200);
    expect(checked - taken).toBeGreaterThan(1000);
  });

  it('takes a customers page as the connector sent it, unknown fields included', () => {
    const page = json({
      ...SAMPLE_RESPONSES['customers/getAll'],
      Customers: [{ ...SAMPLE_CUSTOMER, Novelty: { Since: 'v2' } }],
    });
    expect(acceptedAsIs(OPERATIONS['customers/getAll'].response, page)).toBe(true);
  });

  it('leaves to zod a customer whose UpdatedUtc, Id or enum breaks the contract', () => {
    const customer = json(SAMPLE_CUSTOMER);
    expect(acceptedAsIs(CustomerSchema, customer)).toBe(true);
    expect(acceptedAsIs(CustomerSchema, { ...customer, UpdatedUtc: '2024-13-01' })).toBe(false);
    expect(acceptedAsIs(CustomerSchema, { ...customer, Id: 'c-1' })).toBe(false);
    expect(acceptedAsIs(CustomerSchema, { ...customer, Classifications: ['Royalty'] })).toBe(false);
    const { LastName: _, ...withoutLastName } = customer;
    expect(acceptedAsIs(CustomerSchema, withoutLastName)).toBe(false);
  });

  it('leaves to zod what its parse would change: defaults, transforms, coercion, stripped keys', () => {
    expect(acceptedAsIs(z.object({ a: z.string().default('x') }), {})).toBe(false);
    expect(acceptedAsIs(z.object({ a: z.string().optional().default('x') }), {})).toBe(false);
    expect(acceptedAsIs(z.object({ a: z.string().transform((s) => s) }), { a: 'x' })).toBe(false);
    expect(acceptedAsIs(z.object({ a: z.string().trim() }), { a: ' x ' })).toBe(false);
    expect(acceptedAsIs(z.object({ a: z.coerce.number() }), { a: 1 })).toBe(false);
    expect(acceptedAsIs(z.object({ a: z.string() }), { a: 'x', b: 1 })).toBe(false);
    expect(acceptedAsIs(z.strictObject({ a: z.string() }), { a: 'x', b: 1 })).toBe(false);
    expect(acceptedAsIs(z.looseObject({ a: z.string() }), { a: 'x', b: 1 })).toBe(true);
    expect(acceptedAsIs(z.object({ a: z.string() }), { a: 'x' })).toBe(true);
  });

  it('leaves to zod the schema kinds and refinements it does not know', () => {
    expect(acceptedAsIs(z.union([z.string(), z.number()]), 'x')).toBe(false);
    expect(acceptedAsIs(z.array(z.string()).min(1), ['x'])).toBe(false);
    expect(
      acceptedAsIs(
        z.object({ a: z.string() }).refine(() => true),
        { a: 'x' },
      ),
    ).toBe(false);
    expect(acceptedAsIs(z.record(z.string(), z.string()), { a: 'x' })).toBe(false);
  });

  it('judges leaves by zod: formats, lengths, finite numbers, enums', () => {
    expect(acceptedAsIs(z.string().min(2), 'x')).toBe(false);
    expect(acceptedAsIs(z.string().min(2), 'xy')).toBe(true);
    expect(acceptedAsIs(z.iso.datetime({ offset: true }), '2026-12-07T06:00:00+00:00')).toBe(true);
    expect(acceptedAsIs(z.number(), Number.POSITIVE_INFINITY)).toBe(false);
    expect(acceptedAsIs(z.int(), 1.5)).toBe(false);
    expect(acceptedAsIs(z.enum(['A']), 'B')).toBe(false);
    expect(acceptedAsIs(z.string().nullable().optional(), null)).toBe(true);
    expect(acceptedAsIs(z.string().nullable(), undefined)).toBe(false);
  });
});
