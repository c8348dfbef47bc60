/*
 * The preset dictionary of stored event bodies, version 1. Deflate finds a string's first
 * occurrence in a body here instead of spelling it out: field names of the records, the
 * CloudEvents envelope. That takes a ~3.5 KB customer event from ~930 bytes (Brotli) to
 * ~650, one DynamoDB write unit with its keys. Frozen: stored bodies decode only with the
 * exact bytes they were compressed with. Fields added later belong in a version 2 beside it.
 */

/** Field names of the catalogue's records, one entity type per line (customer last: the nearest, cheapest to reference). */
const RECORD_FIELDS_V1 = [
  // accountNote
  'Id AccountId Content AccountType Classifications IsActive CreatorProfile UpdaterProfile Discriminator EnterpriseProfile ProfileId',
  // accountingCategory
  'Id EnterpriseId IsActive Name Code ExternalCode LedgerAccountCode PostingAccountCode CostCenterCode Classification CreatedUtc UpdatedUtc',
  // billingAutomation
  'Id EnterpriseId Name Description CompaniesWithRelations Prepayment AssignmentTargetType TriggerType BillAggregationType CreatedUtc ProcessingStartOffset OrderItemConsumptionPeriod Assignments CompanyId CompanyRelations PartnerCompany TravelAgency BillingAutomationId ServiceId RoutedItemTypes RateIds ProductCategoryIds ProductIds AccountingCategoryAssignments SpaceOrder CityTax AllProducts Deposits AdditionalExpenses AllCustomItems AccountingCategoryId ItemTypes Products CustomItems',
  // export
  'Id Status EntityType Files ExpiresUtc Url SizeInBytes',
  // loyaltyMembership
  'Id ChainId AccountId LoyaltyProgramId State IsPrimary ProviderMembershipId Code Points ExpirationDate Url LoyaltyTierId CreatorProfile UpdaterProfile Discriminator EnterpriseProfile ProfileId',
  // paymentRequest
  'Id EnterpriseId AccountId CustomerId ReservationGroupId ReservationId State Amount Type Reason ExpirationUtc Description Notes CreatedUtc UpdatedUtc Currency NetValue GrossValue TaxValues Breakdown Code Value Items TaxRateCode TaxValue',
  // productCategory
  'Id EnterpriseId ServiceId Names ShortNames Descriptions ParentProductCategory UpdatedUtc CreatedUtc Ordering',
  // productPrice
  'ProductId TimeUnitStartUtc BaseAmountPrice AgeCategoryPrices Currency NetValue GrossValue TaxValues Breakdown Code Value Items TaxRateCode TaxValue AgeCategoryId Price',
  // reservationGroup
  'Id Name ChannelManager ChannelManagerGroupNumber EnterpriseId',
  // resource
  'Id EnterpriseId IsActive ParentResourceId Name State Descriptions CreatedUtc UpdatedUtc Data Discriminator Value FloorNumber LocationNotes ExternalNames Directions',
  // resourceCategoryImageAssignment
  'Id IsActive CategoryId ImageId CreatedUtc UpdatedUtc',
  // taxEnvironment
  'Code CountryCode TaxationCodes ValidityStartUtc ValidityEndUtc',
  // customer
  'Id ChainId Number Title Sex FirstName LastName SecondLastName NationalityCode PreferredLanguageCode LanguageCode BirthDate BirthPlace Occupation Email HasOtaEmail Phone TaxIdentificationNumber LoyaltyCode AccountingCode BillingCode Notes CarRegistrationNumber DietaryRequirements CreatedUtc UpdatedUtc Passport IdentityCard Visa DriversLicense Address AddressId Classifications Options ItalianDestinationCode ItalianFiscalCode CompanyId MergeTargetId ActivityState IsActive PreferredSpaceFeatures CreatorProfileId UpdaterProfileId CustomerId Type Expiration Issuance IssuingCountryCode IssuingCity IdentityDocumentSupportNumber Line1 Line2 City PostalCode CountryCode CountrySubdivisionCode Latitude Longitude',
].join(' ');

/** The envelope and change data every event has, with common values. */
const EVENT_SKELETON_V1 =
  '{"specversion":"1.0","id":"evt_","type":"customer.updated","source":"connector/","subject":"",' +
  '"time":"2026-01-01T00:00:00.000Z","datacontenttype":"application/json","data":{"entityType":' +
  '"customer","entityId":"","change":"updated","scope":{"enterpriseId":"","chainId":""},' +
  '"current":{},"previous":{},"changedFields":[],"patch":[{"op":"replace","path":"/","value":""}]}}';

/** The dictionary bytes of version 1: every field as `"Name":`, then the skeleton (most used last). */
export const EVENT_BODY_DICTIONARY_V1: Buffer = Buffer.from(
  RECORD_FIELDS_V1.split(' ')
    .map((name) => `"${name}":`)
    .join('') + EVENT_SKELETON_V1,
  'utf8',
);
