import type {
  OperationName,
  OperationRequest,
  OperationResponse,
} from '../../shared/connector/operations.ts';
import type {
  AccountingCategory,
  AccountNote,
  Address,
  Amount,
  BillingAutomation,
  Customer,
  Export,
  IdentityDocument,
  LoyaltyMembership,
  LoyaltyProgram,
  OrderItem,
  PaymentRequest,
  ProductCategory,
  ProductPrice,
  ReservationGroup,
  Resource,
  ResourceCategory,
  ResourceCategoryAssignment,
  ResourceCategoryImageAssignment,
  ResourceFeature,
  ResourceFeatureAssignment,
  RoutingRule,
  TaxEnvironment,
  Voucher,
} from '../../shared/connector/records/index.ts';

/** Stable identifiers shared by the samples, so related records point at each other. */
export const FIXTURE_IDS = {
  chain: '3b1f6c2e-8a4d-4e0b-9c7a-5d2e1f0a9b31',
  enterprise: '851df8c8-90f2-4c4a-8e01-a4fc46b25178',
  service: 'bd26d8db-86da-4f96-9efc-e5a4654a4a94',
  customer: '35d4b117-4e60-44a3-9580-c582117eff98',
  company: 'a1b2c3d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
  document: '7c0e5d8a-1f2b-4c3d-9e4f-5a6b7c8d9e0f',
  address: 'e3f4a5b6-c7d8-4e9f-a0b1-c2d3e4f5a6b7',
  profile: '0f9e8d7c-6b5a-4493-8271-605f4e3d2c1b',
  resource: '5ee074b1-6c86-48e8-915f-c7aa4702086f',
  room: '20e00c32-d561-4008-8609-82d8aa525714',
  category: '44bd8ad0-e70b-4bd9-8445-ad7200d7c349',
  categoryAssignment: '9d3c1b7e-2a4f-4e6d-8c0b-1f3e5d7a9c2b',
  imageAssignment: 'c4b3a291-8f7e-4d6c-9b5a-4f3e2d1c0b9a',
  image: '1a2b3c4d-5e6f-4071-8293-a4b5c6d7e8f9',
  feature: '6f5e4d3c-2b1a-4098-b7a6-958473625140',
  featureAssignment: 'b8a7f6e5-d4c3-4b2a-9180-7f6e5d4c3b2a',
  accountNote: 'd1e2f3a4-b5c6-4d7e-8f90-a1b2c3d4e5f6',
  accountingCategory: '2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f',
  billingAutomation: 'f0e1d2c3-b4a5-4697-8899-aabbccddeeff',
  billingAssignment: '13579bdf-2468-4ace-8024-68ace13579bd',
  rate: 'ed4b660b-19d0-434b-9360-a4de2ea42eda',
  loyaltyMembership: '8e7d6c5b-4a39-4281-b0f9-e8d7c6b5a493',
  loyaltyProgram: '4d3c2b1a-0f9e-48d7-a6b5-c4d3e2f1a0b9',
  loyaltyTier: '97531eca-8642-4fdb-a975-31eca8642fdb',
  paymentRequest: 'aa11bb22-cc33-4d44-8e55-ff6677889900',
  reservation: '0a1b2c3d-4e5f-4607-a819-2a3b4c5d6e7f',
  reservationGroup: 'c0ffee00-1234-4567-89ab-cdef01234567',
  productCategory: '5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d',
  parentProductCategory: '6b5c4d3e-2f1a-4b0c-9d8e-7f6a5b4c3d2e',
  product: '2d1c0b9a-8f7e-46d5-b4c3-a2f1e0d9c8b7',
  ageCategory: 'ab12cd34-ef56-4789-8abc-def012345678',
  routingRule: 'fedcba98-7654-4321-8fed-cba987654321',
  orderItem: '11223344-5566-4778-899a-abbccddeeff0',
  order: '99887766-5544-4332-a110-ffeeddccbbaa',
  bill: '0badcafe-0000-4000-8000-000000000001',
  voucher: 'deadbeef-1234-4abc-9def-0123456789ab',
  export: '3e2d1c0b-a9f8-47e6-b5d4-c3b2a1f0e9d8',
} as const;

const ids = FIXTURE_IDS;

/** An amount in EUR with one VAT rate, net and tax given exactly in cents. */
function euros(net: number, tax: number, taxRateCode = 'AT-S'): Amount {
  return {
    Currency: 'EUR',
    NetValue: net,
    GrossValue: Math.round((net + tax) * 100) / 100,
    TaxValues: [{ Code: taxRateCode, Value: tax }],
    Breakdown: { Items: [{ TaxRateCode: taxRateCode, NetValue: net, TaxValue: tax }] },
  };
}

/** A creator or updater: a person of the enterprise. */
const STAFF_PROFILE = {
  Discriminator: 'Enterprise',
  EnterpriseProfile: { ProfileId: ids.profile },
} as const;

/** A passport of the sample customer. */
export const SAMPLE_IDENTITY_DOCUMENT: IdentityDocument = {
  Id: ids.document,
  CustomerId: ids.customer,
  Type: 'Passport',
  Number: 'P1234567Ž',
  Expiration: '2031-08-14',
  Issuance: '2021-08-15',
  IssuingCountryCode: 'CZ',
  IssuingCity: 'Brno',
  IdentityDocumentSupportNumber: null,
};

/** The sample customer's address. */
export const SAMPLE_ADDRESS: Address = {
  Id: ids.address,
  Line1: 'Náměstí Svobody 12',
  Line2: null,
  City: 'Brno',
  PostalCode: '602 00',
  CountryCode: 'CZ',
  CountrySubdivisionCode: 'CZ-64',
  Latitude: 49.1951,
  Longitude: 16.6068,
};

/** A returning guest with unicode names, one passport and an address. */
export const SAMPLE_CUSTOMER: Customer = {
  Id: ids.customer,
  ChainId: ids.chain,
  Number: '10482',
  Title: 'Misses',
  Sex: 'Female',
  FirstName: 'Zoë',
  LastName: 'Łukasiewicz-Núñez',
  SecondLastName: null,
  NationalityCode: 'PL',
  PreferredLanguageCode: 'pl-PL',
  LanguageCode: 'pl-PL',
  BirthDate: '1987-03-29',
  BirthPlace: 'Kraków',
  Occupation: 'Architektka',
  Email: 'zoe.lukasiewicz@example.com',
  HasOtaEmail: false,
  Phone: '+48 601 234 567',
  TaxIdentificationNumber: null,
  LoyaltyCode: 'GOLD-88213',
  AccountingCode: null,
  BillingCode: null,
  Notes: 'Prefers a quiet room; allergic to feathers 🪶',
  CarRegistrationNumber: 'KR 4812X',
  DietaryRequirements: 'Vegetarian',
  CreatedUtc: '2023-11-02T09:14:27Z',
  UpdatedUtc: '2024-05-17T16:45:03.1234567Z',
  Passport: SAMPLE_IDENTITY_DOCUMENT,
  IdentityCard: null,
  Visa: null,
  DriversLicense: null,
  Address: SAMPLE_ADDRESS,
  AddressId: ids.address,
  Classifications: ['Returning', 'VeryImportant'],
  Options: ['SendMarketingEmails', 'Invoiceable'],
  ItalianDestinationCode: null,
  ItalianFiscalCode: null,
  CompanyId: null,
  MergeTargetId: null,
  ActivityState: 'Active',
  IsActive: true,
  PreferredSpaceFeatures: ['HighFloor', 'Balcony'],
  CreatorProfileId: ids.profile,
  UpdaterProfileId: ids.profile,
};

/** Room 512 on the fifth floor. */
export const SAMPLE_RESOURCE: Resource = {
  Id: ids.resource,
  EnterpriseId: ids.enterprise,
  IsActive: true,
  ParentResourceId: null,
  Name: '512',
  State: 'Clean',
  Descriptions: {
    'en-US': 'Corner room with a view of the Spilberk castle',
    'cs-CZ': 'Rohový pokoj s výhledem na Špilberk',
  },
  CreatedUtc: '2022-01-10T08:00:00Z',
  UpdatedUtc: '2024-05-17T06:30:00Z',
  Data: {
    Discriminator: 'Space',
    Value: {
      FloorNumber: '5',
      LocationNotes: 'Second door left from the lift',
      ExternalNames: { 'en-US': 'Deluxe 512' },
      Directions: {},
    },
  },
};

/** The category of the sample room. */
export const SAMPLE_RESOURCE_CATEGORY: ResourceCategory = {
  Id: ids.category,
  EnterpriseId: ids.enterprise,
  ServiceId: ids.service,
  IsActive: true,
  Type: 'Room',
  Classification: 'SuperiorDouble',
  Names: { 'en-US': 'Deluxe Double', 'cs-CZ': 'Dvoulůžkový pokoj Deluxe' },
  ShortNames: { 'en-US': 'DLX' },
  Descriptions: {},
  Ordering: 3,
  Capacity: 2,
  ExtraCapacity: 1,
  ExternalIdentifier: 'DLX-DBL',
  AccountingCategoryId: ids.accountingCategory,
};

const TIMESTAMPS = {
  CreatedUtc: '2022-01-10T08:00:00Z',
  UpdatedUtc: '2024-02-01T12:00:00Z',
} as const;

/** The sample room's category assignment. */
export const SAMPLE_RESOURCE_CATEGORY_ASSIGNMENT: ResourceCategoryAssignment = {
  Id: ids.categoryAssignment,
  IsActive: true,
  ResourceId: ids.resource,
  CategoryId: ids.category,
  ...TIMESTAMPS,
};

/** A photo of the sample category. */
export const SAMPLE_RESOURCE_CATEGORY_IMAGE_ASSIGNMENT: ResourceCategoryImageAssignment = {
  Id: ids.imageAssignment,
  IsActive: true,
  CategoryId: ids.category,
  ImageId: ids.image,
  ...TIMESTAMPS,
};

/** A balcony feature. */
export const SAMPLE_RESOURCE_FEATURE: ResourceFeature = {
  Id: ids.feature,
  ServiceId: ids.service,
  IsActive: true,
  Classification: 'Balcony',
  Names: { 'en-US': 'Balcony', 'de-DE': 'Balkon' },
  ShortNames: { 'en-US': 'BLC' },
  Descriptions: {},
  ...TIMESTAMPS,
};

/** The sample room has a balcony. */
export const SAMPLE_RESOURCE_FEATURE_ASSIGNMENT: ResourceFeatureAssignment = {
  Id: ids.featureAssignment,
  IsActive: true,
  ResourceId: ids.resource,
  FeatureId: ids.feature,
  ...TIMESTAMPS,
};

/** A housekeeping note on the sample customer. */
export const SAMPLE_ACCOUNT_NOTE: AccountNote = {
  Id: ids.accountNote,
  AccountId: ids.customer,
  Content: 'Extra pillows (no feathers) — Frau Łukasiewicz asked twice',
  AccountType: 'Customer',
  Classifications: ['Housekeeping', 'PreviousStay'],
  IsActive: true,
  CreatorProfile: STAFF_PROFILE,
  UpdaterProfile: { Discriminator: 'Integration', EnterpriseProfile: null },
};

/** The accommodation revenue category. */
export const SAMPLE_ACCOUNTING_CATEGORY: AccountingCategory = {
  Id: ids.accountingCategory,
  EnterpriseId: ids.enterprise,
  IsActive: true,
  Name: 'Übernachtung',
  Code: 'ACC',
  ExternalCode: 'ERP-4410',
  LedgerAccountCode: '602100',
  PostingAccountCode: '311000',
  CostCenterCode: 'CC-ROOMS',
  Classification: 'Accommodation',
  CreatedUtc: '2021-06-01T00:00:00Z',
  UpdatedUtc: '2024-01-15T10:20:30Z',
};

/** Monthly routing of a partner company's stays. */
export const SAMPLE_BILLING_AUTOMATION: BillingAutomation = {
  Id: ids.billingAutomation,
  EnterpriseId: ids.enterprise,
  Name: 'Škoda Auto — monthly stays',
  Description: null,
  CompaniesWithRelations: [
    { CompanyId: ids.company, CompanyRelations: { PartnerCompany: true, TravelAgency: false } },
  ],
  Prepayment: 'All',
  AssignmentTargetType: 'CompanyAsOwner',
  TriggerType: 'Recurring',
  BillAggregationType: 'AggregateByCustomer',
  CreatedUtc: '2024-03-01T07:00:00Z',
  ProcessingStartOffset: 'P1D',
  OrderItemConsumptionPeriod: 'SameMonth',
  Assignments: [
    {
      Id: ids.billingAssignment,
      BillingAutomationId: ids.billingAutomation,
      ServiceId: ids.service,
      RoutedItemTypes: {
        SpaceOrder: true,
        CityTax: true,
        AllProducts: false,
        Deposits: false,
        AdditionalExpenses: false,
        AllCustomItems: false,
      },
      RateIds: [ids.rate],
      ProductCategoryIds: null,
      ProductIds: [ids.product],
      AccountingCategoryAssignments: [
        {
          AccountingCategoryId: ids.accountingCategory,
          ItemTypes: { Products: true, CustomItems: false },
        },
      ],
    },
  ],
};

/** The sample customer's loyalty membership. */
export const SAMPLE_LOYALTY_MEMBERSHIP: LoyaltyMembership = {
  Id: ids.loyaltyMembership,
  ChainId: ids.chain,
  AccountId: ids.customer,
  LoyaltyProgramId: ids.loyaltyProgram,
  State: 'Enrolled',
  IsPrimary: true,
  ProviderMembershipId: 'PRV-000123',
  Code: 'GOLD-88213',
  Points: 12_450,
  ExpirationDate: '2026-12-31T23:59:59Z',
  Url: 'https://loyalty.example.com/members/PRV-000123',
  LoyaltyTierId: ids.loyaltyTier,
  CreatorProfile: STAFF_PROFILE,
  UpdaterProfile: null,
};

/** The chain's loyalty program. */
export const SAMPLE_LOYALTY_PROGRAM: LoyaltyProgram = {
  Id: ids.loyaltyProgram,
  ChainId: ids.chain,
  Name: 'Club Ætheria',
  Code: 'AETH',
  Type: 'Points',
  Subscription: 'Free',
};

/** A deposit request for the sample reservation. */
export const SAMPLE_PAYMENT_REQUEST: PaymentRequest = {
  Id: ids.paymentRequest,
  EnterpriseId: ids.enterprise,
  AccountId: ids.customer,
  CustomerId: ids.customer,
  ReservationGroupId: ids.reservationGroup,
  ReservationId: ids.reservation,
  State: 'Pending',
  Amount: euros(200, 20),
  Type: 'Payment',
  Reason: 'Deposit',
  ExpirationUtc: '2024-06-01T00:00:00Z',
  Description: 'Záloha za pobyt 12.–15. 6.',
  Notes: null,
  CreatedUtc: '2024-05-17T16:50:00Z',
  UpdatedUtc: '2024-05-17T16:50:00Z',
};

/** A wedding party's reservation group. */
export const SAMPLE_RESERVATION_GROUP: ReservationGroup = {
  Id: ids.reservationGroup,
  Name: 'Svatba Nováková & Müller',
  ChannelManager: null,
  ChannelManagerGroupNumber: null,
  EnterpriseId: ids.enterprise,
};

/** Breakfast, under food and beverage. */
export const SAMPLE_PRODUCT_CATEGORY: ProductCategory = {
  Id: ids.productCategory,
  EnterpriseId: ids.enterprise,
  ServiceId: ids.service,
  Names: { 'en-US': 'Breakfast', 'fr-FR': 'Petit-déjeuner' },
  ShortNames: { 'en-US': 'BF' },
  Descriptions: {},
  ParentProductCategory: { Id: ids.parentProductCategory, Names: { 'en-US': 'Food & beverage' } },
  UpdatedUtc: '2024-04-04T04:04:04Z',
  CreatedUtc: '2023-01-01T00:00:00Z',
  Ordering: 10,
};

/** A travel agency's routing of nights and city tax. */
export const SAMPLE_ROUTING_RULE: RoutingRule = {
  Id: ids.routingRule,
  EnterpriseId: ids.enterprise,
  CompanyId: ids.company,
  CompanyRelation: 'TravelAgency',
  Applicability: 'PrepaidOnly',
  RouteType: 'SelectedStayItems',
  ServiceId: ids.service,
  SelectedStayItems: { Nights: true, CityTax: true, ProductCategoryIds: [ids.productCategory] },
  CreatedUtc: '2024-02-02T02:02:02Z',
  UpdatedUtc: '2024-05-05T05:05:05Z',
};

/** An open breakfast item of the sample reservation. */
export const SAMPLE_ORDER_ITEM: OrderItem = {
  Id: ids.orderItem,
  AccountId: ids.customer,
  OrderId: ids.reservation,
  BillId: null,
  AccountingCategoryId: ids.accountingCategory,
  Count: 2,
  Amount: euros(36.36, 3.64, 'AT-R'),
  RevenueType: 'Product',
  ConsumedUtc: '2024-06-13T06:00:00Z',
  ClosedUtc: null,
  AccountingState: 'Open',
  Data: { Discriminator: 'ProductOrder', Value: { ProductId: ids.product } },
};

/** A partner company's voucher. */
export const SAMPLE_VOUCHER: Voucher = {
  Id: ids.voucher,
  ServiceId: ids.service,
  Name: 'Škoda Auto 2024',
  CreatedUtc: '2024-01-02T03:04:05Z',
  UpdatedUtc: '2024-01-02T03:04:05Z',
  Type: 'PartnerCompany',
  ActivityState: 'Active',
  CompanyId: ids.company,
  TravelAgencyId: null,
  OccupiableIntervalStartUtc: '2024-01-01T00:00:00Z',
  OccupiableIntervalEndUtc: '2024-12-31T23:00:00Z',
  ExternalIdentifier: 'SKODA-24',
};

/** A finished order item export with one file. */
export const SAMPLE_EXPORT: Export = {
  Id: ids.export,
  Status: 'Success',
  EntityType: 'OrderItem',
  Files: [{ Url: 'https://exports.example.com/3e2d1c0b/part-0001.jsonl', SizeInBytes: 5_242_880 }],
  ExpiresUtc: '2024-05-24T16:50:00Z',
};

/** The Austrian tax environment, with taxations and rates carried as the service sends them. */
export const SAMPLE_TAX_ENVIRONMENT: TaxEnvironment = {
  Code: 'AT-2020',
  CountryCode: 'AUT',
  TaxationCodes: ['AT'],
  ValidityStartUtc: '2020-07-01T00:00:00Z',
  ValidityEndUtc: null,
  Taxations: [{ Code: 'AT', Name: 'Umsatzsteuer' }],
  TaxRates: [
    {
      Code: 'AT-S',
      TaxationCode: 'AT',
      Strategy: { Discriminator: 'Relative', Value: { Value: 0.1 } },
    },
  ],
};

const PRICING_DAYS = [
  '2024-06-12T22:00:00Z',
  '2024-06-13T22:00:00Z',
  '2024-06-14T22:00:00Z',
] as const;

/** Breakfast on the first priced day, for adults and children. */
export const SAMPLE_PRODUCT_PRICE: ProductPrice = {
  ProductId: ids.product,
  TimeUnitStartUtc: PRICING_DAYS[0],
  BaseAmountPrice: euros(18.18, 1.82, 'AT-R'),
  AgeCategoryPrices: [{ AgeCategoryId: ids.ageCategory, Price: euros(9.09, 0.91, 'AT-R') }],
};

const LIMITATION = { Count: 100 } as const;
const LAST_HOUR = { StartUtc: '2024-05-17T15:00:00Z', EndUtc: '2024-05-17T16:00:00Z' } as const;

/** One valid request body (without the envelope) per operation. */
export const SAMPLE_REQUESTS: { [N in OperationName]: OperationRequest<N> } = {
  'customers/getAll': {
    Limitation: LIMITATION,
    Extent: { Customers: true, Documents: true, Addresses: true },
    UpdatedUtc: LAST_HOUR,
    ActivityStates: ['Active', 'Deleted'],
  },
  'customers/update': {
    CustomerId: ids.customer,
    Email: 'zoe.nunez@example.com',
    Phone: '+48 601 234 567',
    Notes: 'Prefers a quiet room',
    Classifications: ['Returning', 'VeryImportant'],
    Address: { Line1: 'Náměstí Svobody 12', City: 'Brno', PostalCode: '602 00', CountryCode: 'CZ' },
    ItalianFiscalCode: { Value: null },
  },
  'resources/getAll': {
    Limitation: LIMITATION,
    EnterpriseIds: [ids.enterprise],
    Extent: { Resources: true, Inactive: true },
    UpdatedUtc: LAST_HOUR,
  },
  'accountNotes/getAll': {
    Limitation: LIMITATION,
    UpdatedUtc: LAST_HOUR,
    ActivityStates: ['Active', 'Deleted'],
  },
  'accountingCategories/getAll': {
    Limitation: LIMITATION,
    EnterpriseIds: [ids.enterprise],
    UpdatedUtc: LAST_HOUR,
    ActivityStates: ['Active', 'Deleted'],
  },
  'billingAutomations/getAll': { Limitation: LIMITATION, EnterpriseIds: [ids.enterprise] },
  'loyaltyMemberships/getAll': {
    Limitation: LIMITATION,
    UpdatedUtc: LAST_HOUR,
    ActivityStates: ['Active', 'Deleted'],
  },
  'loyaltyPrograms/update': {
    LoyaltyProgramUpdates: [
      { LoyaltyProgramId: ids.loyaltyProgram, Name: { Value: 'Club Ætheria' } },
    ],
  },
  'paymentRequests/getAll': {
    Limitation: LIMITATION,
    EnterpriseIds: [ids.enterprise],
    UpdatedUtc: LAST_HOUR,
    States: ['Pending', 'Completed', 'Canceled', 'Expired'],
  },
  'paymentRequests/add': {
    PaymentRequests: [
      {
        AccountId: ids.customer,
        Amount: { Currency: 'EUR', Value: 220 },
        Type: 'Payment',
        Reason: 'Deposit',
        ExpirationUtc: '2024-06-01T00:00:00Z',
        Description: 'Záloha za pobyt 12.–15. 6.',
      },
    ],
  },
  'reservationGroups/getAll': { Limitation: LIMITATION, UpdatedUtc: LAST_HOUR },
  'productCategories/getAll': {
    Limitation: LIMITATION,
    ServiceIds: [ids.service],
    UpdatedUtc: LAST_HOUR,
  },
  'resourceCategoryImageAssignments/getAll': {
    Limitation: LIMITATION,
    ResourceCategoryIds: [ids.category],
    UpdatedUtc: LAST_HOUR,
    ActivityStates: ['Active', 'Deleted'],
  },
  'products/getPricing': {
    ProductId: ids.product,
    FirstTimeUnitStartUtc: PRICING_DAYS[0],
    LastTimeUnitStartUtc: PRICING_DAYS[2],
  },
  'routingRules/update': {
    RoutingRuleUpdates: [
      {
        RoutingRuleId: ids.routingRule,
        Applicability: { Value: 'PrepaidOnly' },
        SelectedStayItems: {
          Nights: { Value: true },
          ProductCategoryIds: { Value: [ids.productCategory] },
        },
      },
    ],
  },
  'reservations/getAllItems': { ReservationIds: [ids.reservation], Currency: 'EUR' },
  'vouchers/add': {
    VoucherParameters: [
      {
        ServiceId: ids.service,
        Name: 'Škoda Auto 2024',
        Type: 'PartnerCompany',
        CompanyId: ids.company,
        AssignedRateIds: [ids.rate],
        OccupiableIntervalStartUtc: '2024-01-01T00:00:00Z',
        OccupiableIntervalEndUtc: '2024-12-31T23:00:00Z',
        ExternalIdentifier: 'SKODA-24',
      },
    ],
  },
  'restrictions/clear': {
    ServiceId: ids.service,
    Data: [
      {
        Type: 'Start',
        ResourceCategoryId: ids.category,
        StartUtc: '2024-12-23T23:00:00Z',
        EndUtc: '2024-12-26T23:00:00Z',
        Days: {
          Monday: true,
          Tuesday: true,
          Wednesday: true,
          Thursday: true,
          Friday: true,
          Saturday: false,
          Sunday: false,
        },
      },
    ],
  },
  'exports/getAll': { ExportIds: [ids.export] },
  'taxEnvironments/getAll': {},
};

/** One valid response body per operation, built from the sample records. */
export const SAMPLE_RESPONSES: { [N in OperationName]: OperationResponse<N> } = {
  'customers/getAll': {
    Customers: [SAMPLE_CUSTOMER],
    Documents: [SAMPLE_IDENTITY_DOCUMENT],
    Cursor: ids.customer,
  },
  'customers/update': SAMPLE_CUSTOMER,
  'resources/getAll': {
    Resources: [SAMPLE_RESOURCE],
    ResourceCategories: [SAMPLE_RESOURCE_CATEGORY],
    ResourceCategoryAssignments: [SAMPLE_RESOURCE_CATEGORY_ASSIGNMENT],
    ResourceCategoryImageAssignments: [SAMPLE_RESOURCE_CATEGORY_IMAGE_ASSIGNMENT],
    ResourceFeatures: [SAMPLE_RESOURCE_FEATURE],
    ResourceFeatureAssignments: [SAMPLE_RESOURCE_FEATURE_ASSIGNMENT],
    Cursor: ids.resource,
  },
  'accountNotes/getAll': { AccountNotes: [SAMPLE_ACCOUNT_NOTE], Cursor: ids.accountNote },
  'accountingCategories/getAll': {
    AccountingCategories: [SAMPLE_ACCOUNTING_CATEGORY],
    Cursor: ids.accountingCategory,
  },
  'billingAutomations/getAll': {
    BillingAutomations: [SAMPLE_BILLING_AUTOMATION],
    Cursor: ids.billingAutomation,
  },
  'loyaltyMemberships/getAll': {
    LoyaltyMemberships: [SAMPLE_LOYALTY_MEMBERSHIP],
    Cursor: ids.loyaltyMembership,
  },
  'loyaltyPrograms/update': { LoyaltyPrograms: [SAMPLE_LOYALTY_PROGRAM], Cursor: null },
  'paymentRequests/getAll': {
    PaymentRequests: [SAMPLE_PAYMENT_REQUEST],
    Cursor: ids.paymentRequest,
  },
  'paymentRequests/add': { PaymentRequests: [SAMPLE_PAYMENT_REQUEST], Cursor: null },
  'reservationGroups/getAll': {
    ReservationGroups: [SAMPLE_RESERVATION_GROUP],
    Cursor: ids.reservationGroup,
  },
  'productCategories/getAll': {
    ProductCategories: [SAMPLE_PRODUCT_CATEGORY],
    Cursor: ids.productCategory,
  },
  'resourceCategoryImageAssignments/getAll': {
    ResourceCategoryImageAssignments: [SAMPLE_RESOURCE_CATEGORY_IMAGE_ASSIGNMENT],
    Cursor: ids.imageAssignment,
  },
  'products/getPricing': {
    ProductId: ids.product,
    TimeUnitStartsUtc: [...PRICING_DAYS],
    BaseAmountPrices: [
      euros(18.18, 1.82, 'AT-R'),
      euros(18.18, 1.82, 'AT-R'),
      euros(20, 2, 'AT-R'),
    ],
    AgeCategoryPrices: [
      {
        AgeCategoryId: ids.ageCategory,
        Prices: [euros(9.09, 0.91, 'AT-R'), euros(9.09, 0.91, 'AT-R'), euros(10, 1, 'AT-R')],
      },
    ],
  },
  'routingRules/update': { RoutingRules: [SAMPLE_ROUTING_RULE], Cursor: null },
  'reservations/getAllItems': {
    Reservations: [{ ReservationId: ids.reservation, OrderItems: [SAMPLE_ORDER_ITEM], Items: [] }],
  },
  'vouchers/add': { Vouchers: [SAMPLE_VOUCHER] },
  'restrictions/clear': {},
  'exports/getAll': { Exports: [SAMPLE_EXPORT] },
  'taxEnvironments/getAll': { TaxEnvironments: [SAMPLE_TAX_ENVIRONMENT] },
};
