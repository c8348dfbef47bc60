import { type EventType, EventTypeSchema } from '../../shared/changes/catalogue.ts';
import { writeOnlyEvents } from '../../shared/writes/events-of-write.ts';

const context = {
  connectionId: 'main',
  scope: { chainId: 'stream-chain' },
  now: Date.UTC(2026, 0, 2, 9, 30),
};
const ENTERPRISE = 'a0000000-0000-4000-8000-0000000000e1';
const SERVICE = 'a0000000-0000-4000-8000-0000000000e2';
const COMPANY = 'a0000000-0000-4000-8000-0000000000e3';
const TIME = '2026-01-02T09:00:00Z';

/** Records as the three write operations return them. */
export const WRITTEN_RECORDS = {
  loyaltyProgram: {
    Id: 'a0000000-0000-4000-8000-0000000000f1',
    ChainId: 'a0000000-0000-4000-8000-0000000000f2',
    Name: 'Gold',
    Code: 'GOLD',
    Type: 'Points',
    Subscription: 'Free',
  },
  routingRule: {
    Id: 'a0000000-0000-4000-8000-0000000000f3',
    EnterpriseId: ENTERPRISE,
    CompanyId: COMPANY,
    CompanyRelation: 'PartnerCompany',
    Applicability: 'Always',
    RouteType: 'AllStayItems',
    CreatedUtc: TIME,
    UpdatedUtc: TIME,
  },
  voucher: {
    Id: 'a0000000-0000-4000-8000-0000000000f4',
    ServiceId: SERVICE,
    Name: 'Spring',
    CreatedUtc: TIME,
    UpdatedUtc: TIME,
    Type: 'Public',
    ActivityState: 'Active',
    CompanyId: null,
  },
};

/** One sample of each write-only event type, built by the write-through's own builders. */
export function sampleWriteEvents(): { type: EventType; event: unknown }[] {
  const events = [
    ...writeOnlyEvents(
      context,
      'loyaltyPrograms/update',
      {
        LoyaltyProgramUpdates: [
          { LoyaltyProgramId: WRITTEN_RECORDS.loyaltyProgram.Id, Name: { Value: 'Gold' } },
        ],
      },
      { LoyaltyPrograms: [WRITTEN_RECORDS.loyaltyProgram] },
    ),
    ...writeOnlyEvents(
      context,
      'routingRules/update',
      {
        RoutingRuleUpdates: [
          { RoutingRuleId: WRITTEN_RECORDS.routingRule.Id, Applicability: { Value: 'Always' } },
        ],
      },
      { RoutingRules: [WRITTEN_RECORDS.routingRule] },
    ),
    ...writeOnlyEvents(context, 'vouchers/add', {}, { Vouchers: [WRITTEN_RECORDS.voucher] }),
    ...writeOnlyEvents(
      context,
      'restrictions/clear',
      {
        ServiceId: SERVICE,
        Data: [{ Type: 'Stay', StartUtc: TIME, EndUtc: '2026-01-09T09:00:00Z' }],
      },
      {},
    ),
  ];
  return events.map((event) => ({ type: EventTypeSchema.parse(event.type), event }));
}
