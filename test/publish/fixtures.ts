import type { PublishableEvent } from '../../shared/publish/publishable-event.ts';

/** Options of {@link makeEvent}. */
export interface MakeEventOptions {
  entityType?: string;
  entityId?: string;
  change?: 'created' | 'updated' | 'deleted';
  enterpriseId?: string;
  /** Characters of padding in `previous` (drives the size of the event). */
  previousPadding?: number;
  /** Characters of padding in `current`. */
  currentPadding?: number;
}

/** A customer change event numbered `index`, with a deterministic id and time. */
export function makeEvent(index: number, options: MakeEventOptions = {}): PublishableEvent {
  const entityType = options.entityType ?? 'customer';
  const entityId = options.entityId ?? `c${index}`;
  const change = options.change ?? 'updated';
  return {
    specversion: '1.0',
    id: `evt_${String(index).padStart(26, '0')}`,
    type: `${entityType}.${change}`,
    source: 'connector/conn1',
    subject: entityId,
    time: new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString(),
    datacontenttype: 'application/json',
    data: {
      entityType,
      entityId,
      change,
      scope: { enterpriseId: options.enterpriseId ?? 'ent1' },
      current: {
        Id: entityId,
        Email: `new${index}@example.com`,
        Notes: 'x'.repeat(options.currentPadding ?? 0),
      },
      previous: {
        Id: entityId,
        Email: `old${index}@example.com`,
        Notes: 'y'.repeat(options.previousPadding ?? 0),
      },
      changedFields: ['Email'],
      patch: [{ op: 'replace', path: '/Email', value: `new${index}@example.com` }],
    },
  };
}

/** `count` events numbered from 0. */
export function makeEvents(count: number, options: MakeEventOptions = {}): PublishableEvent[] {
  return Array.from({ length: count }, (_, index) => makeEvent(index, options));
}
