import { isJsonObject } from '../json-object.ts';
import { DEFAULT_EVENT_SOURCE } from './event-bridge-entry.ts';

/** A literal an EventBridge pattern compares a field with. */
export type PatternScalar = string | number | boolean | null;

/** A string compared without regard to case (`{ "equals-ignore-case": "x" }`). */
type IgnoreCase = { 'equals-ignore-case': string };

/**
 * One condition of a pattern leaf: the EventBridge content filters this matcher knows:
 * an exact value, `prefix`, `suffix` (either also ignoring case), `equals-ignore-case`,
 * `wildcard`, `numeric`, `anything-but` (values, a prefix, a suffix or ignoring case) and
 * `exists`. `cidr` is not among them: {@link parseEventPattern} refuses a pattern using it.
 */
export type PatternCondition =
  | PatternScalar
  | { prefix: string | IgnoreCase }
  | { suffix: string | IgnoreCase }
  | IgnoreCase
  | { wildcard: string }
  | { numeric: readonly (string | number)[] }
  | {
      'anything-but':
        | PatternScalar
        | readonly PatternScalar[]
        | { prefix: string }
        | { suffix: string }
        | { 'equals-ignore-case': string | readonly string[] };
    }
  | { exists: boolean };

/**
 * An EventBridge event pattern: fields map to nested patterns or to lists of conditions;
 * `$or` holds alternative patterns.
 */
export interface EventPattern {
  readonly [field: string]: EventPattern | readonly PatternCondition[] | readonly EventPattern[];
}

/**
 * The pattern of the local route that sends change events to the dispatch queue (`npm
 * start`): every event whose `source` is ours. In AWS the poller sends them to the
 * dispatch queue itself; no rule is involved.
 * @example new LocalEventRouter({ client, routes: [{ name: 'dispatch', pattern: dispatchEventPattern(), queueUrl }] })
 */
export function dispatchEventPattern(source: string = DEFAULT_EVENT_SOURCE): { source: string[] } {
  return { source: [source] };
}

/**
 * Whether an event envelope matches `pattern`, with EventBridge's rules: every field of the
 * pattern must match; a leaf matches when the value (or, for an array value, any element)
 * meets any of its conditions; a missing field matches only `{ exists: false }`; `$or`
 * matches when any of its patterns does. A nested pattern facing an array (of objects, or of
 * arrays of them) matches when one of its objects matches it whole, as EventBridge's Event
 * Ruler reads arrays: never with fields taken from two different elements.
 * @example matchesEventPattern({ source: ['change-bridge'] }, { source: 'change-bridge' }) // true
 */
export function matchesEventPattern(pattern: EventPattern, envelope: unknown): boolean {
  // An empty array holds no field: it is read as an empty object, as before any array was.
  if (Array.isArray(envelope) && envelope.length > 0) {
    return envelope.some((element) => matchesEventPattern(pattern, element));
  }
  const record = isJsonObject(envelope) ? envelope : {};
  return Object.entries(pattern).every(([field, rule]) => {
    if (field === '$or' && Array.isArray(rule)) {
      return (rule as readonly EventPattern[]).some((alternative) =>
        matchesEventPattern(alternative, envelope),
      );
    }
    const value = Object.hasOwn(record, field) ? record[field] : undefined;
    if (Array.isArray(rule)) return matchesLeaf(rule as readonly PatternCondition[], value);
    return matchesEventPattern(rule as EventPattern, value);
  });
}

/**
 * Reads an event pattern as `ListRules` returns it (JSON text), or undefined when it uses a
 * filter {@link matchesEventPattern} does not know (`cidr`, an unknown operator, malformed
 * JSON): the caller must then assume the rule matches every event, never none.
 * @example parseEventPattern('{"source":["change-bridge"]}') // { source: ['change-bridge'] }
 */
export function parseEventPattern(text: string): EventPattern | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  return isKnownPattern(json) ? json : undefined;
}

function isKnownPattern(value: unknown): value is EventPattern {
  if (!isJsonObject(value)) return false;
  return Object.entries(value).every(([field, rule]) => {
    if (field === '$or')
      return Array.isArray(rule) && rule.length > 0 && rule.every(isKnownPattern);
    if (Array.isArray(rule)) return rule.every(isKnownCondition);
    return isKnownPattern(rule);
  });
}

function isKnownCondition(condition: unknown): boolean {
  if (!isJsonObject(condition)) return isScalar(condition);
  const entries = Object.entries(condition);
  if (entries.length !== 1) return false;
  const [operator, operand] = entries[0]!;
  switch (operator) {
    case 'prefix':
    case 'suffix':
      return typeof operand === 'string' || isIgnoreCase(operand);
    case 'equals-ignore-case':
    case 'wildcard':
      return typeof operand === 'string';
    case 'exists':
      return typeof operand === 'boolean';
    case 'numeric':
      return isNumericOperand(operand);
    case 'anything-but':
      return isKnownExclusion(operand);
    default:
      return false;
  }
}

function isKnownExclusion(operand: unknown): boolean {
  if (isScalar(operand)) return true;
  if (Array.isArray(operand)) return operand.every(isScalar);
  if (!isJsonObject(operand) || Object.keys(operand).length !== 1) return false;
  const [[operator, value]] = Object.entries(operand) as [[string, unknown]];
  if (operator === 'prefix' || operator === 'suffix') return typeof value === 'string';
  if (operator === 'equals-ignore-case') {
    return typeof value === 'string' || (Array.isArray(value) && value.every(isString));
  }
  return false;
}

const NUMERIC_OPERATORS = new Set(['=', '<', '<=', '>', '>=']);

function isNumericOperand(operand: unknown): boolean {
  if (!Array.isArray(operand) || (operand.length !== 2 && operand.length !== 4)) return false;
  for (let i = 0; i < operand.length; i += 2) {
    if (!NUMERIC_OPERATORS.has(String(operand[i])) || typeof operand[i + 1] !== 'number') {
      return false;
    }
  }
  return true;
}

function matchesLeaf(conditions: readonly PatternCondition[], value: unknown): boolean {
  // Arrays of arrays are read as one flat array, as EventBridge does.
  const values = Array.isArray(value) ? value.flat(Number.POSITIVE_INFINITY) : [value];
  return conditions.some((condition) => {
    if (isJsonObject(condition) && 'exists' in condition) {
      return condition.exists === (value !== undefined && !isJsonObject(value));
    }
    return values.some((item) => item !== undefined && matchesCondition(condition, item));
  });
}

function matchesCondition(condition: PatternCondition, value: unknown): boolean {
  if (!isJsonObject(condition)) return condition === value;
  if ('prefix' in condition) return affixMatches(condition.prefix, value, 'prefix');
  if ('suffix' in condition) return affixMatches(condition.suffix, value, 'suffix');
  if ('equals-ignore-case' in condition) {
    return typeof value === 'string' && sameIgnoringCase(value, condition['equals-ignore-case']);
  }
  if ('wildcard' in condition) {
    return typeof value === 'string' && wildcardRegExp(condition.wildcard).test(value);
  }
  if ('numeric' in condition) return numericMatches(condition.numeric, value);
  if ('anything-but' in condition) return !isExcluded(condition['anything-but'], value);
  return false;
}

function affixMatches(affix: string | IgnoreCase, value: unknown, kind: 'prefix' | 'suffix') {
  if (typeof value !== 'string') return false;
  const ignoreCase = typeof affix !== 'string';
  const wanted = ignoreCase ? affix['equals-ignore-case'].toLowerCase() : affix;
  const text = ignoreCase ? value.toLowerCase() : value;
  return kind === 'prefix' ? text.startsWith(wanted) : text.endsWith(wanted);
}

function isExcluded(
  excluded: Extract<PatternCondition, { 'anything-but': unknown }>['anything-but'],
  value: unknown,
): boolean {
  if (isJsonObject(excluded)) {
    // EventBridge: anything-but with a prefix or suffix applies to strings only.
    if (typeof value !== 'string') return true;
    if ('prefix' in excluded) return value.startsWith(excluded.prefix);
    if ('suffix' in excluded) return value.endsWith(excluded.suffix);
    const list = excluded['equals-ignore-case'];
    return (typeof list === 'string' ? [list] : list).some((item) => sameIgnoringCase(value, item));
  }
  const list: readonly PatternScalar[] = Array.isArray(excluded) ? excluded : [excluded];
  return list.some((item) => item === value);
}

function numericMatches(operand: readonly (string | number)[], value: unknown): boolean {
  if (typeof value !== 'number') return false;
  for (let i = 0; i < operand.length; i += 2) {
    const bound = Number(operand[i + 1]);
    const holds = {
      '=': value === bound,
      '<': value < bound,
      '<=': value <= bound,
      '>': value > bound,
      '>=': value >= bound,
    }[String(operand[i])];
    if (!holds) return false;
  }
  return true;
}

function wildcardRegExp(wildcard: string): RegExp {
  // `*` matches any run of characters; `\*` is a literal star.
  const parts = wildcard
    .split(/(?<!\\)\*/)
    .map((part) => part.replaceAll('\\*', '*').replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*')}$`, 's');
}

function sameIgnoringCase(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

function isScalar(value: unknown): value is PatternScalar {
  return (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'number' ||
    typeof value === 'boolean'
  );
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

function isIgnoreCase(value: unknown): value is IgnoreCase {
  return (
    isJsonObject(value) &&
    Object.keys(value).length === 1 &&
    typeof value['equals-ignore-case'] === 'string'
  );
}
