import type { JournalEntry } from '../../shared/simulator/journal.ts';

/** What the end-state check needs of one accepted webhook. */
export interface DeliveredEnd {
  type: string;
  subject: string;
  /** The event's detection time (ISO 8601). */
  time: string;
}

const ALIVE_AFTER: Readonly<Record<string, boolean>> = {
  created: true,
  restored: true,
  'soft-deleted': false,
  'hard-deleted': false,
};

/**
 * The subjects whose last delivered event (by detection time) disagrees with how the journal
 * leaves them: a `…deleted` for a record alive at the end, or any other type for one deleted at
 * the end. The net-effect oracle (expectedLocalEvents) cannot see these: a record created and
 * deleted during the run nets to nothing, so a lost `deleted` is missed; an update delivered as
 * `updated` hides a restore's `created` lost after it. Subjects no event was delivered of are not
 * judged (the net-effect oracle covers those that must have one), nor those `skipDeletion` says
 * a live poll does not find deleted (deletes only a periodic sweep sees), nor subjects the
 * journal does not name. Pure.
 * @example endStateMismatches([{ seq: 1, time: 't', entityType: 'customer', entityId: 'c', kind: 'soft-deleted', changedFields: [] }], [{ type: 'customer.created', subject: 'c', time: 't' }]) // ['customer.created c']
 */
export function endStateMismatches(
  entries: readonly JournalEntry[],
  delivered: readonly DeliveredEnd[],
  skipDeletion: (entry: JournalEntry) => boolean = () => false,
): string[] {
  const lastLifeChange = new Map<string, JournalEntry>();
  for (const entry of entries)
    if (entry.kind in ALIVE_AFTER) lastLifeChange.set(entry.entityId, entry);
  const named = new Set(entries.map((entry) => entry.entityId));
  const last = new Map<string, { event: DeliveredEnd; at: number }>();
  for (const event of delivered) {
    if (!named.has(event.subject)) continue;
    const at = Date.parse(event.time);
    const known = last.get(event.subject);
    if (!known || at >= known.at) last.set(event.subject, { event, at });
  }
  const mismatches: string[] = [];
  for (const [subject, { event }] of last) {
    const change = lastLifeChange.get(subject);
    if (change && skipDeletion(change)) continue;
    const aliveAtEnd = change === undefined || ALIVE_AFTER[change.kind] === true;
    if (aliveAtEnd === event.type.endsWith('.deleted'))
      mismatches.push(`${event.type} ${event.subject}`);
  }
  return mismatches;
}
