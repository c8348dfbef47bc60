import { hash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson, contentHash } from '../../shared/changes/canonical.ts';
import { writeJsonBytes } from '../../shared/changes/json-bytes.ts';
import { type RandomSource, seededRandom } from '../../shared/clock.ts';
import { BridgeError } from '../../shared/errors.ts';
import { awkwardRecord } from './canonical-records.ts';
import { SAMPLE_RECORDS } from './sample-records.ts';

/** Canonical JSON as JSON.stringify writes each member, keys sorted by hand (the definition). */
function reference(value: unknown, skip: readonly string[] = []): string {
  if (Array.isArray(value))
    return `[${Array.from(value, (item) => (item === undefined ? 'null' : reference(item))).join(',')}]`;
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object)
    .filter((key) => object[key] !== undefined && !skip.includes(key))
    .sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${reference(object[key])}`).join(',')}}`;
}

const sha256 = (text: string) => hash('sha256', text, 'hex');

/** Code units of every kind JSON.stringify treats its own way, and unpaired surrogates. */
function randomText(random: RandomSource): string {
  const units = [
    0x41, 0x7a, 0x20, 0x22, 0x5c, 0x2f, 0x00, 0x08, 0x09, 0x0a, 0x0c, 0x0d, 0x1f, 0x7f,
  ];
  const pick = () => Math.floor(random() * 1_000_000);
  let text = '';
  const length = Math.floor(random() * 8);
  for (let i = 0; i < length; i++) {
    const roll = random();
    if (roll < 0.3) text += String.fromCharCode(units[pick() % units.length]!);
    else if (roll < 0.45) text += String.fromCharCode(0x80 + (pick() % 0x780));
    else if (roll < 0.6) text += String.fromCharCode(0x800 + (pick() % 0xd000));
    else if (roll < 0.7) text += String.fromCharCode(0xe000 + (pick() % 0x2000));
    else if (roll < 0.8) text += String.fromCodePoint(0x10000 + (pick() % 0xfffff));
    else if (roll < 0.9) text += String.fromCharCode(0xd800 + (pick() % 0x800));
    else text += String.fromCharCode(0x20 + (pick() % 0x5f));
  }
  return text;
}

function randomNumber(random: RandomSource): number {
  const special = [0, -0, 1e21, 1e-7, 5e-324, 2 ** 53, -(2 ** 31), Number.NaN, Infinity, -Infinity];
  const roll = random();
  if (roll < 0.3) return special[Math.floor(random() * special.length)]!;
  if (roll < 0.6) return Math.floor(random() * 2 ** 40) - 2 ** 39;
  return (random() - 0.5) * 10 ** Math.floor(random() * 60 - 30);
}

/** A random JSON value of at most `depth` levels, strings and keys of any code units. */
function randomValue(random: RandomSource, depth: number): unknown {
  const roll = random();
  if (depth <= 0 || roll < 0.35) {
    const leaf = random();
    if (leaf < 0.4) return randomText(random);
    if (leaf < 0.75) return randomNumber(random);
    return [null, true, false][Math.floor(random() * 3)];
  }
  if (roll < 0.6) {
    return Array.from({ length: Math.floor(random() * 4) }, () =>
      random() < 0.1 ? undefined : randomValue(random, depth - 1),
    );
  }
  const object: Record<string, unknown> = {};
  const size = Math.floor(random() * 6);
  for (let i = 0; i < size; i++) {
    const key = random() < 0.2 ? String(Math.floor(random() * 20)) : randomText(random);
    object[key] = random() < 0.1 ? undefined : randomValue(random, depth - 1);
  }
  return object;
}

describe('canonical JSON written as bytes', () => {
  it('keeps the content hashes of stored snapshots (pinned from the serializer before)', () => {
    const record = awkwardRecord();
    const { Keys: _keys, ...withoutIndexKeys } = record;
    expect(contentHash(record)).toBe(
      'd73d400f72055c2c505724fc127ab05b7ea4316e5509f224ef4dd42443d0f3a2',
    );
    expect(contentHash(record, { volatileFields: [] })).toBe(
      '6b4c19a6c3916f66e611fc43947610f7ba512346226e33cdf1191afc1d8d268b',
    );
    expect(contentHash(withoutIndexKeys)).toBe(
      '62c900437d34fad140cfd3aca635771a51371c854bd2e2fd74c916be39028949',
    );
    expect(
      Object.fromEntries(Object.entries(SAMPLE_RECORDS).map(([t, r]) => [t, contentHash(r)])),
    ).toEqual({
      customer: 'fbfd30a7fd5b41eb8c837c42a2ea01d04344e8b050a61552c5598c2d335ffc82',
      resource: '3712d154fd4784242ca3ab7e486ed6a457cc7981b33199f5c58078eb0efba488',
      accountNote: '3e7d28baafcec5f015a6bab8d794f2ec0555560b5279a82675f0a076c61e1cc1',
      accountingCategory: '815b71731c5d7967d2cd507758a6caace3b8cdcf35f07b923cd8a81317eb5b67',
      billingAutomation: '52924505b8cd13599c29ed440fd6142110c3766a5e7783cc988464cca7b329a9',
      loyaltyMembership: '47be1c3094646dad8f2f663363d1d5ab1ba94af17a0eeff4e15f49d604c5d9e3',
      paymentRequest: '9a96d70cc48870055a4cce8501cd291c4829756beb3b5a6ee96011ee09a4994b',
      reservationGroup: '0adae47bb6b2038d4cd0c2bf3e386077df6aaa88bbb45bc83903b2edf5d11604',
      productCategory: '6a0e87a97e45cfbf8e09b2783abc34a205f0c0c73bff5d2e4878f967a9e529f6',
      resourceCategoryImageAssignment:
        'cf5570f1abce98c4f923da7f6c16269966bee857207fd29422fc3a25c739e693',
      productPrice: 'af1c26c0cac6789818c6d403acab5de89b810798d7f0f7399670985c50da8ef2',
      export: 'de5cbbfb68dcdd9b8b27a472d5719f8aafc30adbea0d84c3857e2db704a0f5cc',
      taxEnvironment: '29ffa8303a077748bfa0e97bb283481a5dd0192912e47353a5df6860374befb6',
    });
  });

  it('writes what JSON.stringify writes member by member, keys sorted, for awkward records', () => {
    const record = awkwardRecord();
    expect(canonicalJson(record)).toBe(reference(record, ['UpdatedUtc']));
    expect(canonicalJson(record, { volatileFields: [] })).toBe(reference(record));
    expect(contentHash(record)).toBe(sha256(reference(record, ['UpdatedUtc'])));
  });

  it('hashes the UTF-8 of the canonical string, for random JSON of any code units', () => {
    const random = seededRandom(23);
    for (let n = 0; n < 3000; n++) {
      const value = randomValue(random, 4);
      const skip = n % 2 === 0 ? ['UpdatedUtc'] : [];
      const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
      const expected = reference(value, isObject ? skip : []);
      expect(canonicalJson(value, { volatileFields: skip })).toBe(expected);
      expect(contentHash(value, { volatileFields: skip })).toBe(sha256(expected));
    }
  });

  it('writes JSON.stringify bytes in the objects own order when not sorted', () => {
    const random = seededRandom(29);
    for (let n = 0; n < 1000; n++) {
      const value = randomValue(random, 4);
      const written = writeJsonBytes(value, { sorted: false }, (bytes) => Buffer.from(bytes));
      expect(written.equals(Buffer.from(JSON.stringify(value)))).toBe(true);
    }
    expect(writeJsonBytes(awkwardRecord(), { sorted: false }, (bytes) => bytes.toString())).toBe(
      JSON.stringify(awkwardRecord()),
    );
  });

  it('writes holes of arrays as null, as JSON.stringify does', () => {
    // biome-ignore lint/suspicious/noSparseArray: a hole is what this checks
    const holes = { a: [1, , 3], b: new Array(2) };
    expect(canonicalJson(holes)).toBe('{"a":[1,null,3],"b":[null,null]}');
  });

  it('serves a call made while another writes (the outer bytes stay whole)', () => {
    const outer = { b: 'outer', a: [1, 2] };
    const inner = { d: 'inner' };
    const both = writeJsonBytes(outer, { sorted: true }, (bytes) => {
      const nested = canonicalJson(inner, { volatileFields: [] });
      return `${bytes.toString()} ${nested}`;
    });
    expect(both).toBe('{"a":[1,2],"b":"outer"} {"d":"inner"}');
  });

  it('writes records larger than its buffer, and small ones after them', () => {
    const big = { Notes: 'é'.repeat(700_000), Id: 'big' };
    expect(canonicalJson(big)).toBe(reference(big));
    expect(canonicalJson({ b: 1, a: 2 })).toBe('{"a":2,"b":1}');
  });

  it('refuses values JSON cannot hold, at any depth', () => {
    for (const value of [{ a: 10n }, { a: [() => 1] }, { a: Symbol('s') }, undefined, 1n]) {
      expect(() => contentHash(value)).toThrow(BridgeError);
    }
  });
});
