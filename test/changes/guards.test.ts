import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type CustomerUpdatedEvent,
  isAnyEvent,
  isChangeEvent,
  isCustomerCreatedEvent,
  isCustomerUpdatedEvent,
  isEventOfType,
  isPingEvent,
  isTaxEnvironmentSnapshotEvent,
} from '../../shared/changes/index.ts';
import { sampleEntityEvents, sampleEvents } from './sample-events.ts';

describe('type guards', () => {
  it('accept their own event type and reject others', () => {
    const { created, updated } = sampleEntityEvents('customer');
    expect(isCustomerUpdatedEvent(updated)).toBe(true);
    expect(isCustomerUpdatedEvent(created)).toBe(false);
    expect(isCustomerCreatedEvent(created)).toBe(true);
    expect(isTaxEnvironmentSnapshotEvent(sampleEntityEvents('taxEnvironment').snapshot)).toBe(true);
    expect(isPingEvent(updated)).toBe(false);
  });

  it('reject an event whose type matches but whose content breaks the schema', () => {
    const { updated } = sampleEntityEvents('customer');
    expect(isCustomerUpdatedEvent({ ...updated, data: { ...updated.data, current: null } })).toBe(
      false,
    );
    expect(isCustomerUpdatedEvent(null)).toBe(false);
    expect(isCustomerUpdatedEvent('customer.updated')).toBe(false);
  });

  it('accept every sample event through the generic guards', () => {
    for (const { type, event } of sampleEvents()) {
      expect(isAnyEvent(event), type).toBe(true);
      expect(isEventOfType(type, event), type).toBe(true);
    }
    expect(isChangeEvent(sampleEntityEvents('export').deleted)).toBe(true);
  });

  it('narrow to the typed record of the entity', () => {
    const value: unknown = sampleEntityEvents('customer').updated;
    if (!isCustomerUpdatedEvent(value)) throw new Error('expected a customer.updated event');
    expectTypeOf(value).toEqualTypeOf<CustomerUpdatedEvent>();
    expectTypeOf(value.data.current.LastName).toEqualTypeOf<string>();
    expect(value.data.current.LastName).toBe('Doe');
  });
});
