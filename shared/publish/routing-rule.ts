import { DEFAULT_EVENT_SOURCE } from './event-bridge-entry.ts';

/** A literal an EventBridge pattern compares a field with. */
export type PatternScalar = string | number | boolean | null;

/**
 * One condition of a pattern leaf: the subset of EventBridge content filtering we use:
 * an exact value, `prefix`, `anything-but` (values or a prefix) and `exists`.
 */
export type PatternCondition =
  | PatternScalar
  | { prefix: string }
  | { 'anything-but': PatternScalar | readonly PatternScalar[] | { prefix: string } }
  | { exists: boolean };

/** An EventBridge event pattern: fields map to nested patterns or to lists of conditions. */
export interface EventPattern {
  readonly [field: string]: EventPattern | readonly PatternCondition[];
}

/**
 * The pattern of the rule that sends change events to the dispatch queue: every event whose
 * `source` is ours. The infra stack passes this same object to its CDK `Rule`, and the
 * local router applies it with {@link matchesEventPattern}, so both route alike.
 * @example new events.Rule(this, 'Dispatch', { eventBus, eventPattern: dispatchEventPattern() })
 */
export function dispatchEventPattern(source: string = DEFAULT_EVENT_SOURCE): { source: string[] } {
  return { source: [source] };
}

/**
 * Whether an event envelope matches `pattern`, with EventBridge's rules: every field of the
 * pattern must match; a leaf matches when the value (or, for an array value, any element)
 * meets any of its conditions; a missing field matches only `{ exists: false }`.
 * @example matchesEventPattern({ source: ['change-bridge'] }, { source: 'change-bridge' }) // true
 */
export function matchesEventPattern(pattern: EventPattern, envelope: unknown): boolean {
  const record = isRecord(envelope) ? envelope : {};
  return Object.entries(pattern).every(([field, rule]) => {
    const value = Object.hasOwn(record, field) ? record[field] : undefined;
    if (isConditionList(rule)) return matchesLeaf(rule, value);
    return matchesEventPattern(rule, value);
  });
}

function matchesLeaf(conditions: readonly PatternCondition[], value: unknown): boolean {
  const values = Array.isArray(value) ? value : [value];
  return conditions.some((condition) => {
    if (isRecord(condition) && 'exists' in condition) {
      return condition.exists === (value !== undefined && !isRecord(value));
    }
    return values.some((item) => item !== undefined && matchesCondition(condition, item));
  });
}

function matchesCondition(condition: PatternCondition, value: unknown): boolean {
  if (!isRecord(condition)) return condition === value;
  if ('prefix' in condition) return typeof value === 'string' && value.startsWith(condition.prefix);
  if ('anything-but' in condition) {
    const excluded = condition['anything-but'];
    if (isRecord(excluded) && 'prefix' in excluded) {
      return typeof value === 'string' && !value.startsWith(excluded.prefix);
    }
    const list: readonly PatternScalar[] = Array.isArray(excluded) ? excluded : [excluded];
    return !list.some((item) => item === value);
  }
  return false;
}

function isConditionList(
  rule: EventPattern | readonly PatternCondition[],
): rule is readonly PatternCondition[] {
  return Array.isArray(rule);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
