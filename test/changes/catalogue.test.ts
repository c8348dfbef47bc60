import { describe, expect, it } from 'vitest';
import {
  AnyEventSchema,
  ChangeEventSchema,
  ENTITY_EVENT_SCHEMAS,
  EVENT_SCHEMAS,
  EventTypeSchema,
  RECORD_SCHEMAS,
  SnapshotEventSchema,
} from '../../shared/changes/catalogue.ts';
import { ENTITY_TYPES } from '../../shared/changes/entity-types.ts';
import { sampleEntityEvents, sampleEvents } from './sample-events.ts';
import { SAMPLE_RECORDS } from './sample-records.ts';

describe('event catalogue', () => {
  it('has a schema for each kind of each of the 13 entities and the 4 operational events', () => {
    expect(EventTypeSchema.options).toHaveLength(13 * 4 + 4 + 4);
    expect(Object.keys(EVENT_SCHEMAS).sort()).toEqual([...EventTypeSchema.options].sort());
    expect(EventTypeSchema.options).toContain('customer.updated');
    expect(EventTypeSchema.options).toContain('taxEnvironment.snapshot');
    expect(EventTypeSchema.options).toContain('subscription.disabled');
  });

  it('pins each schema to its own type', () => {
    for (const type of EventTypeSchema.options) {
      expect(EVENT_SCHEMAS[type].shape.type.value).toBe(type);
    }
  });

  it('uses sample records that conform to the record schemas', () => {
    for (const entityType of ENTITY_TYPES) {
      expect(
        RECORD_SCHEMAS[entityType].safeParse(SAMPLE_RECORDS[entityType]).error,
      ).toBeUndefined();
    }
  });

  it('parses every built event, full and thin, with its catalogue schema', () => {
    for (const { type, event } of sampleEvents()) {
      const schema = EVENT_SCHEMAS[type];
      expect(schema.safeParse(event).error, type).toBeUndefined();
      expect(AnyEventSchema.safeParse(event).success, type).toBe(true);
    }
  });

  it('checks records against the entity schema', () => {
    const { updated } = sampleEntityEvents('customer');
    const broken = { ...updated, data: { ...updated.data, current: { Id: 'not-a-uuid' } } };
    expect(ENTITY_EVENT_SCHEMAS.customer.updated.safeParse(updated).success).toBe(true);
    expect(ENTITY_EVENT_SCHEMAS.customer.updated.safeParse(broken).success).toBe(false);
  });

  it('rejects an event under another type schema and a delete with a current record', () => {
    const { created, deleted } = sampleEntityEvents('resource');
    expect(EVENT_SCHEMAS['resource.updated'].safeParse(created).success).toBe(false);
    expect(EVENT_SCHEMAS['customer.created'].safeParse(created).success).toBe(false);
    const withCurrent = { ...deleted, data: { ...deleted.data, current: SAMPLE_RECORDS.resource } };
    expect(EVENT_SCHEMAS['resource.deleted'].safeParse(withCurrent).success).toBe(false);
  });

  it('rejects envelopes that break CloudEvents fields', () => {
    const { updated } = sampleEntityEvents('customer');
    const schema = EVENT_SCHEMAS['customer.updated'];
    expect(schema.safeParse({ ...updated, specversion: '0.3' }).success).toBe(false);
    expect(schema.safeParse({ ...updated, id: 'evt_short' }).success).toBe(false);
    expect(schema.safeParse({ ...updated, source: 'elsewhere' }).success).toBe(false);
    expect(schema.safeParse({ ...updated, time: 'yesterday' }).success).toBe(false);
  });

  it('separates change events from snapshot events', () => {
    const { updated, snapshot } = sampleEntityEvents('paymentRequest');
    expect(ChangeEventSchema.safeParse(updated).success).toBe(true);
    expect(ChangeEventSchema.safeParse(snapshot).success).toBe(false);
    expect(SnapshotEventSchema.safeParse(snapshot).success).toBe(true);
  });
});

describe('operational events', () => {
  it('require the failing run on delivery.failing and a reason on subscription.disabled', () => {
    const envelope = {
      specversion: '1.0',
      id: 'evt_0123456789ABCDEFGHJKMNPQRS',
      source: 'change-bridge',
      subject: 'sub_1',
      time: '2026-01-02T09:30:00.000Z',
      datacontenttype: 'application/json',
    };
    const data = { subscriptionId: 'sub_1', url: 'https://hooks.example.com/bridge' };
    const failing = { ...envelope, type: 'delivery.failing', data };
    expect(EVENT_SCHEMAS['delivery.failing'].safeParse(failing).success).toBe(false);
    const disabled = { ...envelope, type: 'subscription.disabled', data };
    expect(EVENT_SCHEMAS['subscription.disabled'].safeParse(disabled).success).toBe(false);
    const fromConnector = {
      ...envelope,
      type: 'ping',
      source: 'connector/main',
      data: { message: 'x' },
    };
    expect(EVENT_SCHEMAS.ping.safeParse(fromConnector).success).toBe(false);
    expect(
      EVENT_SCHEMAS.ping.safeParse({ ...fromConnector, source: 'change-bridge' }).success,
    ).toBe(true);
  });
});
