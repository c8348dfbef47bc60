import type { EntityEvent } from '../changes/entity-event-schema.ts';
import type { StoredSnapshot } from '../state/state-store.ts';
import type { Observation, PageChanges } from './page-changes.ts';

/**
 * A publish that throws may have put some of its events out already (one target took them,
 * another failed: EventBridge yes, the dispatch queue no). The page's snapshots are then not
 * committed, and a record that changed again before the retry would be judged against the old
 * snapshot: its event's `previous` and `patch` would skip the event a receiver already has, and
 * a receiver applying `patch` after `patch` would hold a wrong record. So, on such a failure,
 * the snapshot of each entity an event was attempted of is stored as that event's `current`,
 * keeping the events attempted (`StoredSnapshot.unconfirmed`); the next judging of the entity
 * publishes them again first, as they were (same ids: receivers that had them drop them), and
 * judges the record against their `current`. Nothing of this runs while publishes succeed.
 */

/** The stored snapshots a page judges against, with the events to publish again first. */
export interface UnconfirmedTaken {
  /** Stored snapshots with the observed entities' `unconfirmed` left out. */
  judged: Map<string, StoredSnapshot>;
  /** Events attempted before, of the observed entities, in their order. */
  events: EntityEvent[];
  /** The observed entities' snapshots as they are once those events are out (no `unconfirmed`). */
  confirmed: Map<string, StoredSnapshot>;
}

/**
 * Takes the `unconfirmed` events of the observed entities out of their stored snapshots. Returns
 * `stored` itself, untouched, when none carries any (the usual page pays one check per snapshot). Pure.
 */
export function takeUnconfirmed(
  stored: Map<string, StoredSnapshot>,
  observations: readonly Observation[],
): UnconfirmedTaken {
  const events: EntityEvent[] = [];
  const confirmed = new Map<string, StoredSnapshot>();
  let judged = stored;
  for (const { entityId } of observations) {
    const snapshot = stored.get(entityId);
    if (snapshot?.unconfirmed === undefined || confirmed.has(entityId)) continue;
    if (judged === stored) judged = new Map(stored);
    const { unconfirmed, ...clean } = snapshot;
    // Stored by this module from events it built (see unconfirmedSnapshots).
    events.push(...(unconfirmed as unknown as EntityEvent[]));
    confirmed.set(entityId, clean);
    judged.set(entityId, clean);
  }
  return { judged, events, confirmed };
}

/**
 * A page's changes with the events taken by {@link takeUnconfirmed} put first, and a write of
 * each of their entities the page itself does not store again, so their `unconfirmed` is
 * cleared once they are out. Pure.
 */
export function withUnconfirmed<C extends PageChanges>(changes: C, taken: UnconfirmedTaken): C {
  if (taken.events.length === 0) return changes;
  const written = new Set(changes.writes.map((write) => write.entityId));
  const clearing = [...taken.confirmed.values()].filter((s) => !written.has(s.entityId));
  return {
    ...changes,
    events: [...taken.events, ...changes.events],
    writes: [...changes.writes, ...clearing],
  };
}

/**
 * The snapshots to store after a publish of `changes` threw: each entity's write (not a
 * tombstone: a deletion is judged again as it was) with the events attempted of it. Pure.
 */
export function unconfirmedSnapshots(changes: PageChanges): StoredSnapshot[] {
  const bySubject = new Map<string, EntityEvent[]>();
  for (const event of changes.events) {
    const list = bySubject.get(event.subject);
    if (list) list.push(event);
    else bySubject.set(event.subject, [event]);
  }
  const snapshots: StoredSnapshot[] = [];
  for (const write of changes.writes) {
    const attempted = bySubject.get(write.entityId);
    if (attempted === undefined || write.deleted === true) continue;
    snapshots.push({ ...write, unconfirmed: attempted as unknown as Record<string, unknown>[] });
  }
  return snapshots;
}
