import { stableContent } from '../polling/journal-oracle.ts';

/** What the duplicate checks need of one accepted webhook. */
export interface DeliveredChange {
  id: string;
  type: string;
  subject: string;
  /** `data.current`, or `data.previous` on a delete (an operational event: its `data`). */
  content: unknown;
  /** `data.previous` (null on a create): what the change was measured against. */
  previous: unknown;
  /** The event's detection time (ISO 8601). */
  time: string;
}

/** `type`, previous content and current content: one transition of a subject. */
function transition(change: DeliveredChange): string {
  return `${change.type}\u0000${stableContent(change.previous ?? null)}\u0000${stableContent(change.content)}`;
}

/**
 * Each subject's distinct event ids in detection order (event `time`, then first arrival).
 * A redelivery of an id already seen (at-least-once, the same webhook-id) is not a new entry.
 */
function changesBySubject(accepted: readonly DeliveredChange[]): DeliveredChange[][] {
  const seen = new Set<string>();
  const bySubject = new Map<string, DeliveredChange[]>();
  for (const change of accepted) {
    if (seen.has(change.id)) continue;
    seen.add(change.id);
    const list = bySubject.get(change.subject) ?? [];
    list.push(change);
    bySubject.set(change.subject, list);
  }
  return [...bySubject.values()].map((list) =>
    list
      .map((change, arrival) => ({ change, arrival, at: Date.parse(change.time) }))
      .sort((a, b) => a.at - b.at || a.arrival - b.arrival)
      .map(({ change }) => change),
  );
}

/**
 * Ids that deliver again a change already delivered under another id: per subject, in
 * detection order, an id whose transition (type, previous content, current content) is that
 * of the subject's previous id. A change re-detected after a crash under a new id shows up
 * here; a record that really went back and forth (A→B, B→A, A→B) does not, since its
 * second A→B follows a B→A. Content ignores key order and UpdatedUtc.
 */
export function duplicateIds(accepted: readonly DeliveredChange[]): number {
  let duplicates = 0;
  for (const list of changesBySubject(accepted)) {
    for (let i = 1; i < list.length; i++)
      if (transition(list[i - 1]!) === transition(list[i]!)) duplicates++;
  }
  return duplicates;
}

/**
 * First arrivals that came after a later change of their subject: per subject, in arrival order
 * (a redelivered id counts where it first arrived), each id detected before the latest
 * detection time already seen; and a `created` that arrived after another event of its subject
 * detected at the same time. Events of one poll share a detection time, and one poll sends two
 * of a subject only as a backfill's `created` just ahead of the change it saw (see
 * BackfillContext in polling): the `created` must come first.
 */
export function outOfOrderArrivals(
  accepted: readonly Pick<DeliveredChange, 'id' | 'type' | 'subject' | 'time'>[],
): number {
  const seen = new Set<string>();
  /** Per subject, the latest detection time seen, and whether a change other than `created` came at it. */
  const latestBySubject = new Map<string, { at: number; changeAt: boolean }>();
  let outOfOrder = 0;
  for (const change of accepted) {
    if (seen.has(change.id)) continue;
    seen.add(change.id);
    const at = Date.parse(change.time);
    const created = change.type.endsWith('.created');
    const latest = latestBySubject.get(change.subject);
    if (latest !== undefined && at < latest.at) outOfOrder++;
    else if (latest !== undefined && at === latest.at) {
      if (created && latest.changeAt) outOfOrder++;
      latest.changeAt ||= !created;
    } else latestBySubject.set(change.subject, { at, changeAt: !created });
  }
  return outOfOrder;
}

/**
 * Extra ids of the same type, subject and resulting content, whatever came between: a record
 * that came back to content it had before (a resource's State toggled back, a customer
 * deleted and restored unchanged). These are new changes with new ids, counted for the report
 * only; {@link duplicateIds} is the check.
 */
export function revisitedStates(accepted: readonly DeliveredChange[]): number {
  const idsByResult = new Map<string, Set<string>>();
  for (const change of accepted) {
    const key = `${change.type}\u0000${change.subject}\u0000${stableContent(change.content)}`;
    const ids = idsByResult.get(key) ?? new Set<string>();
    ids.add(change.id);
    idsByResult.set(key, ids);
  }
  return [...idsByResult.values()].reduce((sum, ids) => sum + ids.size - 1, 0);
}
