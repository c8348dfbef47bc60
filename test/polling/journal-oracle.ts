import type { JournalEntry } from '../../shared/simulator/journal.ts';

/** An event the journal implies: type and subject. */
export interface ExpectedEvent {
  type: string;
  subject: string;
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
 * round is known, the two differ (two updates may put a value back).
 */
export function expectedEventsOfRound(
  entries: readonly JournalEntry[],
  before: ContentAt = () => undefined,
  after: ContentAt = () => undefined,
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
      if (!reverted) expected.push({ type: `${first.entityType}.updated`, subject });
    }
  }
  return expected;
}

/** Multiset difference of events by `type subject`. */
export function compareEvents(expected: readonly ExpectedEvent[], got: readonly ExpectedEvent[]) {
  const key = (event: ExpectedEvent) => `${event.type} ${event.subject}`;
  const remaining = new Map<string, number>();
  for (const event of got) remaining.set(key(event), (remaining.get(key(event)) ?? 0) + 1);
  const missing: string[] = [];
  for (const event of expected) {
    const count = remaining.get(key(event)) ?? 0;
    if (count === 0) missing.push(key(event));
    else remaining.set(key(event), count - 1);
  }
  const unexpected = [...remaining.entries()].flatMap(([k, count]) => Array<string>(count).fill(k));
  return { missing, unexpected };
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
