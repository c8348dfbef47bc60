import { describe, expect, it } from 'vitest';
import type { EntityEvent } from '../../shared/changes/entity-event-schema.ts';
import { buildChangeEvent } from '../../shared/changes/event.ts';
import {
  takeUnconfirmed,
  unconfirmedSnapshots,
  withUnconfirmed,
} from '../../shared/polling/unconfirmed-events.ts';
import type { StoredSnapshot } from '../../shared/state/state-store.ts';

const updated = (entityId: string, from: string, to: string): EntityEvent =>
  buildChangeEvent({
    connectionId: 'main',
    entityType: 'customer',
    entityId,
    scope: {},
    detectedAt: 1_000,
    volatileFields: ['UpdatedUtc'],
    previousVersion: 500,
    change: 'updated',
    previous: { Id: entityId, Notes: from },
    current: { Id: entityId, Notes: to },
  });

const snapshot = (entityId: string, notes: string, extra: Partial<StoredSnapshot> = {}) => ({
  entityId,
  hash: `h-${notes}`,
  record: { Id: entityId, Notes: notes },
  updatedAt: 1_000,
  ...extra,
});

describe('events a failed publish may have put out in part', () => {
  it('leave the stored snapshots untouched, the same map, when none carries any', () => {
    const stored = new Map([['a', snapshot('a', 'A')]]);
    const taken = takeUnconfirmed(stored, [{ entityId: 'a', record: { Id: 'a' } }]);
    expect(taken.judged).toBe(stored);
    expect(taken.events).toEqual([]);
    const changes = { events: [updated('a', 'A', 'B')], writes: [snapshot('a', 'B')] };
    expect(withUnconfirmed(changes, taken)).toBe(changes);
  });

  it('are taken from the observed entities only, and go before the page’s own events', () => {
    const first = updated('a', 'A', 'B');
    const other = updated('z', 'Y', 'Z');
    const stored = new Map([
      ['a', snapshot('a', 'B', { unconfirmed: [first as never] })],
      ['z', snapshot('z', 'Z', { unconfirmed: [other as never] })],
    ]);
    const taken = takeUnconfirmed(stored, [{ entityId: 'a', record: { Id: 'a' } }]);
    expect(taken.events).toEqual([first]);
    expect(taken.judged.get('a')).toEqual(snapshot('a', 'B'));
    // The unobserved entity keeps its events for the read that judges it.
    expect(taken.judged.get('z')).toBe(stored.get('z'));
    expect(stored.get('a')?.unconfirmed).toEqual([first]);

    const next = updated('a', 'B', 'C');
    const changes = withUnconfirmed({ events: [next], writes: [snapshot('a', 'C')] }, taken);
    expect(changes.events).toEqual([first, next]);
    expect(changes.writes).toEqual([snapshot('a', 'C')]);
    // Unchanged since: the snapshot is stored again without them, once they are out.
    expect(withUnconfirmed({ events: [], writes: [] }, taken).writes).toEqual([snapshot('a', 'B')]);
  });

  it('are kept on each changed entity’s write after a failure, but not on a tombstone', () => {
    const first = updated('a', 'A', 'B');
    const second = updated('a', 'B', 'C');
    const gone = updated('d', 'D', 'D2');
    const snapshots = unconfirmedSnapshots({
      events: [first, gone, second],
      writes: [snapshot('a', 'C'), snapshot('d', 'D', { deleted: true }), snapshot('n', 'N')],
    });
    expect(snapshots).toEqual([snapshot('a', 'C', { unconfirmed: [first, second] as never })]);
  });
});
