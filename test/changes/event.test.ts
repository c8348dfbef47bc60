import jsonpatch from 'fast-json-patch';
import { describe, expect, it } from 'vitest';
import { contentHash } from '../../shared/changes/canonical.ts';
import { EntityEventSchema } from '../../shared/changes/entity-event-schema.ts';
import {
  buildChangeEvent,
  buildSnapshotEvent,
  detectChange,
  isSoftDeleted,
  thinEvent,
} from '../../shared/changes/event.ts';
import { EVENT_ID_PATTERN, eventId } from '../../shared/changes/event-id.ts';

const previous = {
  Id: 'c1',
  ChainId: 'ch1',
  LastName: 'Doe',
  Email: 'ann@example.com',
  IsActive: true,
  UpdatedUtc: '2026-01-01T00:00:00Z',
};
const current = { ...previous, Email: 'ann@doe.example', UpdatedUtc: '2026-01-02T00:00:00Z' };
const common = {
  connectionId: 'main',
  entityType: 'customer',
  entityId: 'c1',
  scope: { chainId: 'ch1' },
  detectedAt: Date.UTC(2026, 0, 2, 3, 4, 5, 678),
} as const;

describe('buildChangeEvent', () => {
  it('builds the CloudEvents envelope of an update with diff and patch', () => {
    const event = buildChangeEvent({ ...common, change: 'updated', previous, current });
    expect(event).toEqual({
      specversion: '1.0',
      id: eventId({ ...common, change: 'updated', contentHash: contentHash(current) }),
      type: 'customer.updated',
      source: 'connector/main',
      subject: 'c1',
      time: '2026-01-02T03:04:05.678Z',
      datacontenttype: 'application/json',
      data: {
        entityType: 'customer',
        entityId: 'c1',
        change: 'updated',
        scope: { chainId: 'ch1' },
        current,
        previous,
        changedFields: ['Email'],
        patch: [
          { op: 'replace', path: '/Email', value: 'ann@doe.example' },
          { op: 'replace', path: '/UpdatedUtc', value: '2026-01-02T00:00:00Z' },
        ],
      },
    });
    expect(event.id).toMatch(EVENT_ID_PATTERN);
    expect(
      jsonpatch.applyPatch(structuredClone(previous), event.data.patch ?? []).newDocument,
    ).toEqual(current);
    expect(EntityEventSchema.parse(event)).toEqual(event);
  });

  it('builds a create with previous null, listing every non-volatile field', () => {
    const event = buildChangeEvent({ ...common, change: 'created', current });
    expect(event.type).toBe('customer.created');
    expect(event.data.previous).toBeNull();
    expect(event.data.current).toBe(current);
    expect(event.data.changedFields).toEqual(['ChainId', 'Email', 'Id', 'IsActive', 'LastName']);
    expect(event.data.patch).toEqual([]);
  });

  it('builds a delete with null current and an id from the last snapshot hash', () => {
    const event = buildChangeEvent({ ...common, change: 'deleted', previous });
    expect(event.type).toBe('customer.deleted');
    expect(event.data.current).toBeNull();
    expect(event.data.previous).toBe(previous);
    expect(event.id).toBe(
      eventId({ ...common, change: 'deleted', contentHash: contentHash(previous) }),
    );
  });

  it('gives the same change detected twice the same id, at any detection time', () => {
    const first = buildChangeEvent({ ...common, change: 'updated', previous, current });
    const again = buildChangeEvent({
      ...common,
      detectedAt: common.detectedAt + 60_000,
      change: 'updated',
      previous,
      current: { ...current, UpdatedUtc: '2026-01-03T00:00:00Z' },
    });
    expect(again.id).toBe(first.id);
    expect(again.time).not.toBe(first.time);
  });

  it('honours configured volatile fields in the id and changedFields', () => {
    const touched = { ...previous, Email: 'x@y.z', UpdatedUtc: '2026-01-05T00:00:00Z' };
    const volatileFields = ['Email'];
    const event = buildChangeEvent({
      ...common,
      change: 'updated',
      previous,
      current: touched,
      volatileFields,
    });
    expect(event.data.changedFields).toEqual(['UpdatedUtc']);
    expect(event.id).toBe(
      eventId({
        ...common,
        change: 'updated',
        contentHash: contentHash(touched, { volatileFields }),
      }),
    );
  });

  it('refuses a change kind without the record it needs', () => {
    expect(() =>
      buildChangeEvent({ ...common, change: 'deleted', previous: null as never }),
    ).toThrow(/previous is required/);
  });
});

describe('event text', () => {
  it('keeps the envelope and data members in their published order for every kind', () => {
    const events = [
      buildChangeEvent({ ...common, change: 'created', current }),
      buildChangeEvent({ ...common, change: 'updated', previous, current, previousVersion: 7 }),
      buildChangeEvent({ ...common, change: 'deleted', previous, backfillId: 'job-1' }),
      buildSnapshotEvent({ ...common, current }),
    ];
    const envelope = ['specversion', 'id', 'type', 'source', 'subject', 'time'];
    const data = ['entityType', 'entityId', 'scope', 'change', 'current', 'previous'];
    for (const event of events) {
      expect(Object.keys(event)).toEqual([...envelope, 'datacontenttype', 'data']);
      expect(Object.keys(event.data)).toEqual([...data, 'changedFields', 'patch']);
    }
    expect(JSON.stringify(events[1])).toBe(
      '{"specversion":"1.0","id":"' +
        events[1]!.id +
        '","type":"customer.updated","source":"connector/main","subject":"c1",' +
        '"time":"2026-01-02T03:04:05.678Z","datacontenttype":"application/json","data":' +
        '{"entityType":"customer","entityId":"c1","scope":{"chainId":"ch1"},"change":"updated",' +
        `"current":${JSON.stringify(current)},"previous":${JSON.stringify(previous)},` +
        '"changedFields":["Email"],"patch":[{"op":"replace","path":"/Email","value":"ann@doe.example"},' +
        '{"op":"replace","path":"/UpdatedUtc","value":"2026-01-02T00:00:00Z"}]}}',
    );
  });
});

describe('buildSnapshotEvent', () => {
  it('builds <entity>.snapshot with current and a deterministic id', () => {
    const event = buildSnapshotEvent({ ...common, current });
    expect(event.type).toBe('customer.snapshot');
    expect(event.data.change).toBe('snapshot');
    expect(event.data.current).toBe(current);
    expect(event.data.previous).toBeNull();
    expect(event.id).toBe(buildSnapshotEvent({ ...common, current: { ...current } }).id);
    expect(event.id).not.toBe(buildChangeEvent({ ...common, change: 'created', current }).id);
    expect(EntityEventSchema.parse(event)).toEqual(event);
  });
});

describe('thinEvent', () => {
  it('drops previous and patch and marks the event truncated', () => {
    const full = buildChangeEvent({ ...common, change: 'updated', previous, current });
    const thin = thinEvent(full);
    expect(thin.data).not.toHaveProperty('previous');
    expect(thin.data).not.toHaveProperty('patch');
    expect(thin.data.truncated).toBe(true);
    expect(thin.id).toBe(full.id);
    expect(thin.data.current).toBe(current);
    expect(thin.data.changedFields).toEqual(['Email']);
    expect(full.data.patch).toHaveLength(2);
    expect(JSON.stringify(thin).length).toBeLessThan(JSON.stringify(full).length);
  });
});

describe('isSoftDeleted', () => {
  it('counts IsActive false and ActivityState Deleted as deleted', () => {
    expect(isSoftDeleted({ IsActive: false })).toBe(true);
    expect(isSoftDeleted({ ActivityState: 'Deleted', IsActive: true })).toBe(true);
    expect(isSoftDeleted({ IsActive: true, ActivityState: 'Active' })).toBe(false);
    expect(isSoftDeleted({ Id: 'no flags' })).toBe(false);
  });

  it('reads ActivityState in any letter case: the contract writes the values as active or deleted', () => {
    expect(isSoftDeleted({ ActivityState: 'deleted', IsActive: true })).toBe(true);
    expect(isSoftDeleted({ ActivityState: 'DELETED' })).toBe(true);
    expect(isSoftDeleted({ ActivityState: 'active', IsActive: true })).toBe(false);
    expect(isSoftDeleted({ ActivityState: null, IsActive: true })).toBe(false);
  });
});

describe('detectChange', () => {
  const live = { hash: contentHash(previous), record: previous };
  const tombstone = { ...live, deleted: true };
  const softDeleted = { ...previous, IsActive: false };
  const activityDeleted = { ...previous, ActivityState: 'Deleted' };
  const touched = { ...previous, UpdatedUtc: '2026-03-03T00:00:00Z' };
  const reordered = Object.fromEntries(Object.entries(previous).reverse());

  it.each([
    ['no snapshot', 'no record', undefined, undefined, 'none'],
    ['no snapshot', 'an inactive record', undefined, softDeleted, 'none'],
    ['no snapshot', 'an ActivityState Deleted record', undefined, activityDeleted, 'none'],
    ['no snapshot', 'an active record', undefined, current, 'created'],
    ['a live snapshot', 'no record', live, undefined, 'deleted'],
    ['a live snapshot', 'an inactive record', live, softDeleted, 'deleted'],
    ['a live snapshot', 'an ActivityState Deleted record', live, activityDeleted, 'deleted'],
    ['a live snapshot', 'the same record touched', live, touched, 'none'],
    ['a live snapshot', 'the same record reordered', live, reordered, 'none'],
    ['a live snapshot', 'a changed record', live, current, 'updated'],
    ['a tombstone', 'no record', tombstone, undefined, 'none'],
    ['a tombstone', 'an inactive record', tombstone, softDeleted, 'none'],
    ['a tombstone', 'an active record again', tombstone, previous, 'created'],
  ] as const)('with %s and %s decides %s', (_s, _r, snapshot, record, expected) => {
    expect(detectChange({ previous: snapshot, current: record }).change).toBe(expected);
  });

  it('returns the hash of the fetched record, or null without one', () => {
    expect(detectChange({ previous: live, current }).currentHash).toBe(contentHash(current));
    expect(detectChange({ previous: live }).currentHash).toBeNull();
  });

  it('uses the configured volatile fields', () => {
    const snapshot = { hash: contentHash(previous, { volatileFields: [] }), record: previous };
    expect(detectChange({ previous: snapshot, current: touched, volatileFields: [] }).change).toBe(
      'updated',
    );
  });
});
