import type { RandomSource } from '../../shared/clock.ts';

/** Keys chosen to exercise JSON Pointer escaping and odd-but-legal names. */
const KEYS = ['Id', 'Email', 'a/b', 'x~y', '~1', '/', '', 'UpdatedUtc', 'Nested', 'List', '0'];

function pick<T>(random: RandomSource, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A random JSON value of at most `depth` levels of nesting, from a seeded source. */
export function randomJson(random: RandomSource, depth: number): unknown {
  const roll = random();
  if (depth <= 0 || roll < 0.4) {
    return pick(random, [null, true, false, 0, -1.5, 42, 'text', '', 'a/b~c']);
  }
  if (roll < 0.7) {
    return Array.from({ length: Math.floor(random() * 4) }, () => randomJson(random, depth - 1));
  }
  return randomObject(random, depth - 1);
}

/** A random JSON object whose keys come from a small set with `/` and `~` in them. */
export function randomObject(random: RandomSource, depth: number): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  const size = Math.floor(random() * 5);
  for (let i = 0; i < size; i++) result[pick(random, KEYS)] = randomJson(random, depth);
  return result;
}

/** A changed copy of `value`: members added, removed and altered, arrays grown or shrunk. */
export function mutateJson(random: RandomSource, value: unknown, depth: number): unknown {
  if (random() < 0.15) return randomJson(random, depth);
  if (Array.isArray(value)) {
    const copy = value.map((item) => (random() < 0.5 ? mutateJson(random, item, depth - 1) : item));
    if (random() < 0.25) copy.push(randomJson(random, depth - 1));
    if (random() < 0.2) copy.pop();
    return copy;
  }
  if (isObject(value)) return mutateObject(random, value, depth);
  return random() < 0.5 ? value : randomJson(random, depth);
}

/** A changed copy of an object (the top level of a record stays an object). */
export function mutateObject(
  random: RandomSource,
  value: Record<string, unknown>,
  depth: number,
): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const roll = random();
    if (roll < 0.15) continue;
    copy[key] = roll < 0.55 ? mutateJson(random, item, depth - 1) : item;
  }
  if (random() < 0.4) copy[pick(random, KEYS)] = randomJson(random, depth - 1);
  return copy;
}
