import { describe, expect, it } from 'vitest';
import type { JournalEntry, MutationKind } from '../../shared/simulator/journal.ts';
import { endStateMismatches } from './end-states.ts';

let seq = 0;
const entry = (entityId: string, kind: MutationKind, entityType = 'customer'): JournalEntry => ({
  seq: ++seq,
  time: '2026-12-03T10:00:00.000Z',
  entityType: entityType as JournalEntry['entityType'],
  entityId,
  kind,
  changedFields: [],
});
const at = (second: number) => new Date(Date.UTC(2026, 11, 3, 10, 0, second)).toISOString();
const event = (type: string, subject: string, second: number) => ({
  type,
  subject,
  time: at(second),
});

describe('endStateMismatches', () => {
  it('finds a record created and deleted in the run whose delete never arrived', () => {
    const entries = [
      entry('c-1', 'created'),
      entry('c-1', 'updated'),
      entry('c-1', 'soft-deleted'),
    ];
    expect(
      endStateMismatches(entries, [
        event('customer.created', 'c-1', 1),
        event('customer.updated', 'c-1', 2),
      ]),
    ).toEqual(['customer.updated c-1']);
    expect(
      endStateMismatches(entries, [
        event('customer.created', 'c-1', 1),
        event('customer.deleted', 'c-1', 3),
      ]),
    ).toEqual([]);
  });

  it('finds a restore lost after an update that the net effect took for the change', () => {
    const entries = [
      entry('c-2', 'updated'),
      entry('c-2', 'soft-deleted'),
      entry('c-2', 'restored'),
    ];
    const delivered = [event('customer.updated', 'c-2', 1), event('customer.deleted', 'c-2', 2)];
    expect(endStateMismatches(entries, delivered)).toEqual(['customer.deleted c-2']);
    expect(
      endStateMismatches(entries, [...delivered, event('customer.created', 'c-2', 3)]),
    ).toEqual([]);
  });

  it('judges by detection time, not arrival, and leaves out deletes only a sweep finds', () => {
    const entries = [
      entry('c-3', 'soft-deleted'),
      entry('r-1', 'hard-deleted', 'reservationGroup'),
    ];
    expect(
      endStateMismatches(
        entries,
        [
          event('customer.deleted', 'c-3', 2),
          event('customer.updated', 'c-3', 1),
          event('reservationGroup.updated', 'r-1', 1),
        ],
        (change) => change.entityType === 'reservationGroup' && change.kind === 'hard-deleted',
      ),
    ).toEqual([]);
  });

  it('takes a record only updated or touched in the run as alive at its end', () => {
    const entries = [entry('c-4', 'updated'), entry('c-4', 'touched')];
    expect(endStateMismatches(entries, [event('customer.updated', 'c-4', 1)])).toEqual([]);
    expect(endStateMismatches(entries, [event('customer.deleted', 'c-4', 1)])).toEqual([
      'customer.deleted c-4',
    ]);
  });
});
