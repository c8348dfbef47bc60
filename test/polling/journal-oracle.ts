import type { JournalEntry } from '../../shared/simulator/journal.ts';

/** An event the journal implies: type and subject. */
export interface ExpectedEvent {
  type: string;
  subject: string;
  /**
   * Another type that delivers the same change, when which one the bridge sends depends on when
   * it polled (see {@link OracleOptions.acrossPolls}); `type` is matched first.
   */
  orType?: string;
}

/** How the entries given to {@link expectedEventsOfRound} were polled. */
export interface OracleOptions {
  /**
   * The entries span many polls at moments the oracle does not know (a whole run of the bridge),
   * not the one poll after them. An entity alive before and after, updated, and deleted and
   * restored in between then nets to `updated`, but a poll that sees it deleted sends `deleted`
   * and then the restore as `created` (its record as it is then, the update included): an
   * `updated` follows only if a poll fell between the restore and the update, or between the
   * update and the deletion. Either `updated` or `created` delivers it.
   */
  acrossPolls?: boolean;
}

const BRINGS_TO_LIFE = new Set(['created', 'restored']);
const ENDS_LIFE = new Set(['soft-deleted', 'hard-deleted']);

/** Content of an entity at a moment (JSON without UpdatedUtc), or undefined when unknown. */
export type ContentAt = (entityType: string, entityId: string) => string | undefined;

/**
 * The events one poll round must produce, from the journal entries between two polls: per
 * entity, the net effect of its mutations. Alive before the round unless its first mutation
 * brings it to life; alive after unless its last one ends it. Born → created; ended →
 * deleted; alive throughout → updated when some mutation changed content (a touch changes
 * only UpdatedUtc and implies nothing) and, where the model's content before and after the
 * round is known, the two differ (two updates may put a value back). For entries that span many
 * polls, see {@link OracleOptions.acrossPolls}.
 */
export function expectedEventsOfRound(
  entries: readonly JournalEntry[],
  before: ContentAt = () => undefined,
  after: ContentAt = () => undefined,
  options: OracleOptions = {},
): ExpectedEvent[] {
  const byEntity = new Map<string, JournalEntry[]>();
  for (const entry of entries) {
    const key = `${entry.entityType}\u0000${entry.entityId}`;
    byEntity.set(key, [...(byEntity.get(key) ?? []), entry]);
  }
  const expected: ExpectedEvent[] = [];
  for (const list of byEntity.values()) {
    const first = list[0]!;
    const last = list.at(-1)!;
    const aliveBefore = !BRINGS_TO_LIFE.has(first.kind);
    const aliveAfter = !ENDS_LIFE.has(last.kind);
    const subject = first.entityId;
    if (!aliveBefore && aliveAfter) expected.push({ type: `${first.entityType}.created`, subject });
    else if (aliveBefore && !aliveAfter)
      expected.push({ type: `${first.entityType}.deleted`, subject });
    else if (aliveBefore && aliveAfter && list.some((entry) => entry.kind === 'updated')) {
      const was = before(first.entityType, subject);
      const now = after(first.entityType, subject);
      const reverted = was !== undefined && now !== undefined && was === now;
      if (reverted) continue;
      const deletedMeanwhile = list.some((entry) => ENDS_LIFE.has(entry.kind));
      expected.push({
        type: `${first.entityType}.updated`,
        subject,
        ...(options.acrossPolls && deletedMeanwhile
          ? { orType: `${first.entityType}.created` }
          : {}),
      });
    }
  }
  return expected;
}

/**
 * Multiset difference of events by `type subject`: every expected event takes a delivered one of
 * its type first, then those still unmatched one of their `orType`, if any (`byAlternative`
 * lists those, by their own type).
 */
export function compareEvents(expected: readonly ExpectedEvent[], got: readonly ExpectedEvent[]) {
  const key = (type: string, subject: string) => `${type} ${subject}`;
  const remaining = new Map<string, number>();
  for (const { type, subject } of got)
    remaining.set(key(type, subject), (remaining.get(key(type, subject)) ?? 0) + 1);
  const take = (type: string, subject: string): boolean => {
    const count = remaining.get(key(type, subject)) ?? 0;
    if (count > 0) remaining.set(key(type, subject), count - 1);
    return count > 0;
  };
  const unmatched = expected.filter(({ type, subject }) => !take(type, subject));
  const missing: string[] = [];
  const byAlternative: string[] = [];
  for (const { type, subject, orType } of unmatched) {
    if (orType !== undefined && take(orType, subject)) byAlternative.push(key(type, subject));
    else missing.push(key(type, subject));
  }
  const unexpected = [...remaining.entries()].flatMap(([k, count]) => Array<string>(count).fill(k));
  return { missing, unexpected, byAlternative };
}

/** JSON with sorted keys and without UpdatedUtc: equal for equal content. */
export function stableContent(record: unknown): string {
  const sort = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(sort);
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.keys(value)
          .filter((key) => key !== 'UpdatedUtc')
          .sort()
          .map((key) => [key, sort((value as Record<string, unknown>)[key])]),
      );
    }
    return value;
  };
  return JSON.stringify(sort(record));
}
