import type { EntityType } from '../../shared/changes/entity-types.ts';

const T0 = '2026-01-01T08:00:00Z';
const ENTERPRISE = '11111111-1111-4111-8111-111111111111';
const CHAIN = '22222222-2222-4222-8222-222222222222';
const PROFILE = { Discriminator: 'Integration', EnterpriseProfile: null };
const amount = (net: number) => ({
  Currency: 'EUR',
  NetValue: net,
  GrossValue: net * 1.1,
  TaxValues: [{ Code: 'VAT', Value: net * 0.1 }],
  Breakdown: { Items: [{ TaxRateCode: 'VAT-10', NetValue: net, TaxValue: net * 0.1 }] },
});

/** One valid record per entity type, shaped as the Connector API returns it. */
export const SAMPLE_RECORDS: Record<EntityType, Record<string, unknown>> = {
  customer: {
    Id: 'a0000000-0000-4000-8000-000000000001',
    ChainId: CHAIN,
    Number: '1001',
    FirstName: 'Ann',
    LastName: 'Doe',
    Email: 'ann@example.com',
    CreatedUtc: T0,
    UpdatedUtc: T0,
    Address: { Id: 'a0000000-0000-4000-8000-0000000000a1', City: 'Prague', CountryCode: 'CZ' },
    Classifications: ['Returning'],
    Options: [],
    IsActive: true,
    ActivityState: 'Active',
    PreferredSpaceFeatures: ['SeaView'],
    CreatorProfileId: 'a0000000-0000-4000-8000-0000000000c1',
    UpdaterProfileId: 'a0000000-0000-4000-8000-0000000000c1',
  },
  resource: {
    Id: 'a0000000-0000-4000-8000-000000000002',
    EnterpriseId: ENTERPRISE,
    IsActive: true,
    Name: '101',
    State: 'Clean',
    Descriptions: { 'en-US': 'Corner room' },
    CreatedUtc: T0,
    UpdatedUtc: T0,
    Data: {
      Discriminator: 'Space',
      Value: { FloorNumber: '1', ExternalNames: {}, Directions: { 'en-US': 'Left' } },
    },
  },
  accountNote: {
    Id: 'a0000000-0000-4000-8000-000000000003',
    AccountId: 'a0000000-0000-4000-8000-000000000001',
    Content: 'Prefers a quiet room',
    AccountType: 'Customer',
    Classifications: ['FrontOffice'],
    IsActive: true,
    CreatorProfile: PROFILE,
    UpdaterProfile: PROFILE,
  },
  accountingCategory: {
    Id: 'a0000000-0000-4000-8000-000000000004',
    EnterpriseId: ENTERPRISE,
    IsActive: true,
    Name: 'Accommodation',
    Code: 'ACC',
    ExternalCode: 'X-ACC',
    LedgerAccountCode: '602',
    PostingAccountCode: '311',
    CostCenterCode: 'CC1',
    Classification: 'Accommodation',
    CreatedUtc: T0,
    UpdatedUtc: T0,
  },
  billingAutomation: {
    Id: 'a0000000-0000-4000-8000-000000000005',
    EnterpriseId: ENTERPRISE,
    Name: 'Route stays to company',
    Description: null,
    CompaniesWithRelations: [
      {
        CompanyId: 'a0000000-0000-4000-8000-0000000000b5',
        CompanyRelations: { PartnerCompany: true, TravelAgency: false },
      },
    ],
    Prepayment: 'All',
    AssignmentTargetType: 'CompanyAsOwner',
    TriggerType: 'Continuous',
    BillAggregationType: 'OnePerReservation',
    CreatedUtc: T0,
    Assignments: null,
  },
  loyaltyMembership: {
    Id: 'a0000000-0000-4000-8000-000000000006',
    ChainId: CHAIN,
    AccountId: 'a0000000-0000-4000-8000-000000000001',
    LoyaltyProgramId: 'a0000000-0000-4000-8000-0000000000d6',
    State: 'Enrolled',
    IsPrimary: true,
    Code: 'GOLD-1',
    Points: 1200,
    CreatorProfile: PROFILE,
    UpdaterProfile: null,
  },
  paymentRequest: {
    Id: 'a0000000-0000-4000-8000-000000000007',
    EnterpriseId: ENTERPRISE,
    AccountId: 'a0000000-0000-4000-8000-000000000001',
    State: 'Pending',
    Amount: amount(100),
    Type: 'Payment',
    Reason: 'Deposit',
    ExpirationUtc: '2026-01-08T08:00:00Z',
    Description: 'Deposit for your stay',
    CreatedUtc: T0,
    UpdatedUtc: T0,
  },
  reservationGroup: {
    Id: 'a0000000-0000-4000-8000-000000000008',
    Name: 'Wedding party',
    ChannelManager: null,
    EnterpriseId: ENTERPRISE,
  },
  productCategory: {
    Id: 'a0000000-0000-4000-8000-000000000009',
    EnterpriseId: ENTERPRISE,
    ServiceId: 'a0000000-0000-4000-8000-0000000000e9',
    Names: { 'en-US': 'Breakfast' },
    ShortNames: {},
    Descriptions: {},
    UpdatedUtc: T0,
    CreatedUtc: T0,
    Ordering: 2,
  },
  resourceCategoryImageAssignment: {
    Id: 'a0000000-0000-4000-8000-000000000010',
    IsActive: true,
    CategoryId: 'a0000000-0000-4000-8000-0000000000f0',
    ImageId: 'a0000000-0000-4000-8000-0000000000f1',
    CreatedUtc: T0,
    UpdatedUtc: T0,
  },
  productPrice: {
    ProductId: 'a0000000-0000-4000-8000-000000000011',
    TimeUnitStartUtc: '2026-01-01T23:00:00Z',
    BaseAmountPrice: amount(20),
    AgeCategoryPrices: [
      { AgeCategoryId: 'a0000000-0000-4000-8000-0000000000f2', Price: amount(10) },
    ],
  },
  export: {
    Id: 'a0000000-0000-4000-8000-000000000012',
    Status: 'Success',
    EntityType: 'OrderItem',
    Files: [{ Url: 'https://files.example.com/1.jsonl', SizeInBytes: 2048 }],
    ExpiresUtc: null,
  },
  taxEnvironment: {
    Code: 'CZ-2026',
    CountryCode: 'CZE',
    TaxationCodes: ['CZ-VAT'],
    ValidityStartUtc: '2026-01-01T00:00:00Z',
    ValidityEndUtc: null,
  },
};

/** A changed copy of a sample record: one field altered the way the entity allows. */
export function changedSample(entityType: EntityType): Record<string, unknown> {
  const record = SAMPLE_RECORDS[entityType];
  switch (entityType) {
    case 'productPrice':
      return { ...record, AgeCategoryPrices: [] };
    case 'taxEnvironment':
      return { ...record, TaxationCodes: ['CZ-VAT', 'CZ-CITY'] };
    case 'export':
      return { ...record, Status: 'Expired', Files: [] };
    default:
      return { ...record, Extra: { 'a/b': [1, 2] }, UpdatedUtc: '2026-01-02T08:00:00Z' };
  }
}
