import { describe, expect, it } from 'vitest';
import { requireFromDynalite } from '../../shared/local/dynalite-require.ts';
import {
  type CheckTypes,
  dynaliteCheckTypes,
  fastCheckTypes,
  parseDynaliteTypesOnce,
} from '../../shared/local/dynalite-type-check.ts';

const ACTIONS = [
  'batchGetItem',
  'batchWriteItem',
  'createTable',
  'deleteItem',
  'getItem',
  'putItem',
  'query',
  'scan',
  'updateItem',
  'updateTable',
] as const;
type Types = Parameters<CheckTypes>[1];
const typesOf = (action: string) =>
  (requireFromDynalite(`./validations/${action}`) as { types: Types }).types;

/** A small deterministic generator (mulberry32), so a failure can be replayed. */
function randomSource(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]! };
}
type Random = ReturnType<typeof randomSource>;

/** JSON of the wrong kind, and strings the Boolean and Blob checks treat specially. */
const ODD_VALUES: unknown[] = [
  true,
  false,
  0,
  1.5,
  -3,
  'TRUE',
  'no',
  '1',
  '0',
  'maybe',
  'abc',
  'YWJj',
  'YWJ=',
  [],
  [1, 'a'],
  {},
  { S: 'x' },
  null,
];

/** A value for `spec`: mostly of the right shape, sometimes of any other, recursively. */
function valueFor(spec: unknown, random: Random, depth: number): unknown {
  if (random.next() < 0.12 || depth > 4) return random.pick(ODD_VALUES);
  const children =
    typeof spec === 'object' && spec !== null
      ? (spec as { children?: unknown }).children
      : undefined;
  const name = String(typeof spec === 'string' ? spec : (spec as { type: string }).type);
  const kind = name.replace(/<.*$/, '');
  if (kind === 'AttrStruct') return attributeValue(random, depth);
  if (kind === 'String') return random.pick(['x', 'PUT', 'TOTAL', 'a'.repeat(300), '']);
  if (kind === 'Blob') return random.pick(['YWJj', 'AAEC', '']);
  if (kind === 'Boolean') return random.pick([true, false]);
  if (['Integer', 'Long', 'Short', 'Double'].includes(kind)) return random.pick([1, 2.7, 100]);
  const childSpec = typeof children === 'string' ? children : children;
  if (kind === 'List' || kind === 'ParameterizedList')
    return Array.from({ length: Math.floor(random.next() * 3) }, () =>
      valueFor(childSpec, random, depth + 1),
    );
  if (kind === 'Map' || kind === 'ParameterizedMap')
    return Object.fromEntries(
      Array.from({ length: Math.floor(random.next() * 3) }, (_, i) => [
        `k${i}`,
        valueFor(childSpec, random, depth + 1),
      ]),
    );
  // ValueStruct / FieldStruct: a structure of some of its fields, plus one it does not know.
  const fields = Object.entries((children ?? {}) as Record<string, unknown>).filter(
    () => random.next() < 0.6,
  );
  return Object.fromEntries([
    ...fields.map(([key, child]) => [key, valueFor(child, random, depth + 1)]),
    ...(random.next() < 0.2 ? [['Unknown', 1]] : []),
  ]);
}

function attributeValue(random: Random, depth: number): unknown {
  const member = random.pick(['S', 'N', 'B', 'BOOL', 'NULL', 'SS', 'NS', 'BS', 'L', 'M']);
  const values: Record<string, () => unknown> = {
    S: () => 'text',
    N: () => '12.5',
    B: () => 'YWJj',
    BOOL: () => random.pick([true, 'yes', 'FALSE']),
    NULL: () => true,
    SS: () => ['a', random.pick(ODD_VALUES)],
    NS: () => ['1'],
    BS: () => ['AAEC', random.pick(ODD_VALUES)],
    L: () => [attributeValue(random, depth + 1)],
    M: () => ({ inner: attributeValue(random, depth + 1) }),
  };
  const odd = random.next() < 0.15;
  return { [member]: odd ? random.pick(ODD_VALUES) : depth > 3 ? 'x' : values[member]!() };
}

type Outcome =
  | { returned: unknown; input: unknown }
  | { thrown: { message: string; statusCode?: number; body?: unknown } };

function outcomeOf(check: CheckTypes, data: unknown, types: Types): Outcome {
  const input = structuredClone(data) as Record<string, unknown>;
  try {
    return { returned: check(input, types), input };
  } catch (error) {
    const { message, statusCode, body } = error as Error & { statusCode?: number; body?: unknown };
    return { thrown: { message, statusCode, body } };
  }
}

describe('fastCheckTypes', () => {
  it('answers every request as dynalite checkTypes does: result, conversions, removed fields and errors', () => {
    const original = dynaliteCheckTypes();
    expect(original).not.toBe(fastCheckTypes);
    const random = randomSource(20261126);
    let threw = 0;
    for (let i = 0; i < 4_000; i++) {
      const types = typesOf(ACTIONS[i % ACTIONS.length]!);
      const data = valueFor({ type: 'FieldStruct<Request>', children: types }, random, 0);
      if (typeof data !== 'object' || data === null || Array.isArray(data)) continue;
      const expected = outcomeOf(original, data, types);
      expect(outcomeOf(fastCheckTypes, data, types)).toEqual(expected);
      if ('thrown' in expected) threw++;
    }
    // Both kinds of answer were compared, not only one.
    expect(threw).toBeGreaterThan(200);
    expect(threw).toBeLessThan(3_800);
  });

  it('converts as DynamoDB does: Boolean words, whole numbers for integer fields', () => {
    const types = typesOf('query');
    const checked = fastCheckTypes(
      { TableName: 'bridge', Limit: 2.9, ConsistentRead: 'yes', Select: 'COUNT', Extra: 1 },
      types,
    );
    expect(checked).toEqual({
      TableName: 'bridge',
      Limit: 2,
      ConsistentRead: true,
      Select: 'COUNT',
    });
  });

  it('is what dynalite uses once installed, and installing twice keeps the original', () => {
    parseDynaliteTypesOnce();
    parseDynaliteTypesOnce();
    const validations = requireFromDynalite('./validations') as { checkTypes: CheckTypes };
    expect(validations.checkTypes).toBe(fastCheckTypes);
    expect(dynaliteCheckTypes()).not.toBe(fastCheckTypes);
  });
});
