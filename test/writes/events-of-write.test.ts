import { describe, expect, it } from 'vitest';
import { contentHash } from '../../shared/changes/canonical.ts';
import {
  isCustomerUpdatedEvent,
  isPaymentRequestCreatedEvent,
} from '../../shared/changes/guards.ts';
import { isRestrictionClearedEvent } from '../../shared/changes/write-events.ts';
import { computeChanges, observe } from '../../shared/polling/page-changes.ts';
import type { StoredSnapshot } from '../../shared/state/state-store.ts';
import {
  polledWriteChanges,
  writeOnlyEvents,
  writeOnlyScope,
} from '../../shared/writes/events-of-write.ts';
import { SAMPLE_RECORDS } from '../changes/sample-records.ts';
import { sampleWriteEvents, WRITTEN_RECORDS } from '../changes/sample-write-events.ts';

const context = {
  connectionId: 'main',
  scope: { chainId: 'stream-chain' },
  now: 1_700_000_000_000,
};
const volatileFields = ['UpdatedUtc'];
const customer = SAMPLE_RECORDS.customer;
const updated = { ...customer, Notes: 'written through', UpdatedUtc: '2026-02-01T00:00:00Z' };

function snapshotOf(record: Record<string, unknown>, updatedAt: number): StoredSnapshot {
  return { entityId: String(record.Id), hash: contentHash(record), record, updatedAt };
}

function customerWrite(stored: Map<string, StoredSnapshot>) {
  return polledWriteChanges({
    context,
    entityType: 'customer',
    volatileFields,
    records: [updated],
    stored,
    request: { CustomerId: customer.Id, Notes: 'written through' },
  });
}

describe('events of a write', () => {
  it('diffs customers/update against the stored snapshot, and the next poll of that content emits nothing', () => {
    const stored = new Map([[String(customer.Id), snapshotOf(customer, 5)]]);
    const changes = customerWrite(stored);
    expect(changes.events).toHaveLength(1);
    const [event] = changes.events;
    expect(isCustomerUpdatedEvent(event)).toBe(true);
    expect(event!.data.changedFields).toEqual(['Notes']);
    expect(event!.data.previous).toEqual(customer);
    // The poll that follows reads the record as written: the written snapshot is current.
    const after = new Map(changes.writes.map((write) => [write.entityId, write]));
    const poll = computeChanges(observe('customer', [updated]), after, {
      connectionId: 'main',
      entityType: 'customer',
      scope: context.scope,
      volatileFields,
      emitCreated: true,
      now: context.now + 1000,
    });
    expect(poll).toEqual({ events: [], writes: [] });
  });

  it('gives a repeated write against the same snapshot the same event id', () => {
    const stored = new Map([[String(customer.Id), snapshotOf(customer, 5)]]);
    expect(customerWrite(stored).events[0]!.id).toBe(customerWrite(stored).events[0]!.id);
  });

  it('publishes customer.updated without previous when no snapshot was stored yet', () => {
    const changes = customerWrite(new Map());
    const [event] = changes.events;
    expect(event!.type).toBe('customer.updated');
    expect(isCustomerUpdatedEvent(event)).toBe(true);
    expect(event!.data.previous).toBeUndefined();
    expect(event!.data.changedFields).toEqual(['Notes']);
    expect(changes.writes.map((write) => write.entityId)).toEqual([customer.Id]);
  });

  it('names without a snapshot only the fields the update changes: blanks keep the stored value', () => {
    const changes = polledWriteChanges({
      context,
      entityType: 'customer',
      volatileFields,
      records: [updated],
      stored: new Map(),
      // customers/update rule 1: a field left out or blank keeps its value; rule 2: Notes
      // replaces it, a null Notes included.
      request: { CustomerId: customer.Id, Notes: null, Email: null, FirstName: ' ', Phone: '1' },
    });
    expect(changes.events[0]!.data.changedFields).toEqual(['Notes', 'Phone']);
  });

  it('publishes paymentRequest.created for an added request, as a poll would', () => {
    const changes = polledWriteChanges({
      context,
      entityType: 'paymentRequest',
      volatileFields,
      records: [SAMPLE_RECORDS.paymentRequest],
      stored: new Map(),
      request: {},
    });
    expect(changes.events.map((event) => event.type)).toEqual(['paymentRequest.created']);
    expect(isPaymentRequestCreatedEvent(changes.events[0])).toBe(true);
  });

  it('names what loyaltyPrograms/update and routingRules/update set, and keeps ids stable on repeat', () => {
    const first = sampleWriteEvents();
    const second = sampleWriteEvents();
    expect(first.map((s) => s.type)).toEqual([
      'loyaltyProgram.updated',
      'routingRule.updated',
      'voucher.created',
      'restriction.cleared',
    ]);
    expect(first.map((s) => (s.event as { id: string }).id)).toEqual(
      second.map((s) => (s.event as { id: string }).id),
    );
    const [loyalty, rule] = first.map((s) => s.event as { data: { changedFields: string[] } });
    expect(loyalty!.data.changedFields).toEqual(['Name']);
    expect(rule!.data.changedFields).toEqual(['Applicability']);
  });

  it('carries the cleared conditions in restriction.cleared, subject the service', () => {
    const conditions = [
      { Type: 'Start', ResourceCategoryId: 'a0000000-0000-4000-8000-0000000000c1' },
    ];
    const [event] = writeOnlyEvents(
      context,
      'restrictions/clear',
      { ServiceId: 'svc-1', Data: conditions },
      {},
    );
    expect(isRestrictionClearedEvent(event)).toBe(true);
    expect(event!.subject).toBe('svc-1');
    expect(event!.data).toMatchObject({ serviceId: 'svc-1', conditions, change: 'cleared' });
  });

  it('publishes one routingRule.updated for a rule named twice, naming what both updates set', () => {
    const rule = WRITTEN_RECORDS.routingRule;
    const events = writeOnlyEvents(
      context,
      'routingRules/update',
      {
        RoutingRuleUpdates: [
          { RoutingRuleId: rule.Id, Applicability: { Value: 'Always' } },
          { RoutingRuleId: rule.Id, CompanyRelation: { Value: 'TravelAgency' } },
        ],
      },
      // The connector answers the rule's final state in each element that names it.
      { RoutingRules: [rule, rule] },
    );
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ changedFields: ['Applicability', 'CompanyRelation'] });
  });

  it('leaves out of changedFields the update values sent as null, which change nothing', () => {
    const program = WRITTEN_RECORDS.loyaltyProgram;
    const [event] = writeOnlyEvents(
      context,
      'loyaltyPrograms/update',
      {
        LoyaltyProgramUpdates: [
          { LoyaltyProgramId: program.Id, Name: { Value: 'Gold' }, Type: null },
        ],
      },
      { LoyaltyPrograms: [program] },
    );
    expect(event!.data).toMatchObject({ changedFields: ['Name'] });
  });

  it('scopes a voucher by the EnterpriseId sent only with a Portfolio Access Token, which the connector checks', () => {
    const sent = { EnterpriseId: 'a0000000-0000-4000-8000-0000000000e2' };
    expect(writeOnlyScope('vouchers/add', sent, context.scope, true)).toEqual({
      chainId: 'stream-chain',
      enterpriseId: sent.EnterpriseId,
    });
    // Any other token: the connector ignores EnterpriseId, so it says nothing of the voucher.
    expect(writeOnlyScope('vouchers/add', sent, context.scope, false)).toEqual(context.scope);
    expect(writeOnlyScope('restrictions/clear', sent, context.scope, true)).toEqual(context.scope);
  });

  it('names in changedFields only fields of the record: AssignmentTargetType is a request field no routing rule has', () => {
    const rule = WRITTEN_RECORDS.routingRule;
    const [event] = writeOnlyEvents(
      context,
      'routingRules/update',
      {
        RoutingRuleUpdates: [
          {
            RoutingRuleId: rule.Id,
            Applicability: { Value: 'Always' },
            AssignmentTargetType: 'AllStayItems',
          },
        ],
      },
      { RoutingRules: [rule] },
    );
    expect(event!.data).toMatchObject({ changedFields: ['Applicability'] });
  });
});
