import type {
  AccountNote,
  Customer,
  IdentityDocument,
  LoyaltyMembership,
  PaymentRequest,
  ProfileData,
  ReservationGroup,
} from '../connector/records/index.ts';
import { withMembers } from '../with-members.ts';
import { grossAmount } from './amount.ts';
import type { SimModel } from './model.ts';
import {
  asciiSlug,
  CITIES,
  FIRST_NAMES,
  GROUP_NAMES,
  LANGUAGES,
  LAST_NAMES,
  NOTE_TEXTS,
  OCCUPATIONS,
  STREETS,
} from './names.ts';
import { DAY_MS, iso, isoDate } from './sim-random.ts';

const CLASSIFICATIONS = [
  'Returning',
  'VeryImportant',
  'Important',
  'Staff',
  'Student',
  'Media',
] as const;
const OPTIONS = [
  'SendMarketingEmails',
  'Invoiceable',
  'GuestPhotoConsent',
  'IdPhotosConsent',
] as const;
const FEATURES = [
  'SeaView',
  'TwinBeds',
  'DoubleBed',
  'Balcony',
  'HighFloor',
  'AccessibleRoom',
  'AirConditioning',
] as const;
const NOTE_CLASSES = [
  'General',
  'FoodAndBeverage',
  'FrontOffice',
  'Housekeeping',
  'Complaints',
  'Gifts',
] as const;

/** A staff profile reference for creator and updater fields. */
export function staffProfile(model: SimModel): ProfileData {
  return {
    Discriminator: 'Enterprise',
    EnterpriseProfile: { ProfileId: model.random.pick(model.world.profileIds) },
  };
}

function document(
  model: SimModel,
  customerId: string,
  type: IdentityDocument['Type'],
  nowMs: number,
): IdentityDocument {
  const random = model.random;
  const city = random.pick(CITIES);
  return {
    Id: random.uuid(),
    CustomerId: customerId,
    Type: type,
    Number: `${type === 'Passport' ? 'P' : 'D'}${random.int(1_000_000, 9_999_999)}`,
    Expiration: isoDate(nowMs + random.int(30, 3000) * DAY_MS),
    Issuance: isoDate(nowMs - random.int(100, 3000) * DAY_MS),
    IssuingCountryCode: city.country,
    IssuingCity: city.city,
    IdentityDocumentSupportNumber: null,
  };
}

/**
 * A realistic customer created at `createdMs`. `serial` makes Number and Email unique
 * (customers/update rule 3 relies on unique emails).
 */
export function makeCustomer(
  model: SimModel,
  createdMs: number,
  serial: number,
  chainId = model.world.chainId,
): Customer {
  const random = model.random;
  const id = random.uuid();
  const first = random.pick(FIRST_NAMES);
  const last = random.pick(LAST_NAMES);
  const city = random.pick(CITIES);
  const hasAddress = random.chance(0.7);
  const addressId = hasAddress ? random.uuid() : null;
  const profile = random.pick(model.world.profileIds);
  const language = random.pick(LANGUAGES);
  const sex = random.pick(['Male', 'Female'] as const);
  return {
    Id: id,
    ChainId: chainId,
    Number: String(serial),
    Title: sex === 'Male' ? 'Mister' : random.pick(['Miss', 'Misses'] as const),
    Sex: sex,
    FirstName: first,
    LastName: last,
    SecondLastName: random.chance(0.05) ? random.pick(LAST_NAMES) : null,
    NationalityCode: city.country,
    PreferredLanguageCode: language,
    LanguageCode: language,
    BirthDate: random.chance(0.6)
      ? isoDate(Date.UTC(random.int(1940, 2005), random.int(0, 11), random.int(1, 28)))
      : null,
    BirthPlace: random.chance(0.3) ? random.pick(CITIES).city : null,
    Occupation: random.chance(0.3) ? random.pick(OCCUPATIONS) : null,
    Email: random.chance(0.9)
      ? `${asciiSlug(first)}.${asciiSlug(last)}.${serial}@example.com`
      : null,
    HasOtaEmail: random.chance(0.05),
    Phone: random.chance(0.7)
      ? `+420 ${random.int(600, 799)} ${random.int(100, 999)} ${random.int(100, 999)}`
      : null,
    TaxIdentificationNumber: random.chance(0.1) ? `CZ${random.int(10_000_000, 99_999_999)}` : null,
    LoyaltyCode: random.chance(0.2) ? `LOY-${serial}` : null,
    AccountingCode: null,
    BillingCode: null,
    Notes: random.chance(0.1) ? random.pick(NOTE_TEXTS) : null,
    CarRegistrationNumber: random.chance(0.1)
      ? `${random.int(1, 9)}A${random.int(1000, 9999)}`
      : null,
    DietaryRequirements: random.chance(0.1) ? 'Vegetarian' : null,
    CreatedUtc: iso(createdMs),
    UpdatedUtc: iso(createdMs),
    Passport: random.chance(0.3) ? document(model, id, 'Passport', createdMs) : null,
    IdentityCard: random.chance(0.2) ? document(model, id, 'IdentityCard', createdMs) : null,
    Visa: random.chance(0.03) ? document(model, id, 'Visa', createdMs) : null,
    DriversLicense: random.chance(0.05) ? document(model, id, 'DriversLicense', createdMs) : null,
    ...(addressId
      ? {
          Address: {
            Id: addressId,
            Line1: `${random.pick(STREETS)} ${random.int(1, 120)}`,
            Line2: random.chance(0.2) ? `Apt ${random.int(1, 40)}` : null,
            City: city.city,
            PostalCode: city.postal,
            CountryCode: city.country,
            CountrySubdivisionCode: city.subdivision,
            Latitude: city.lat,
            Longitude: city.lon,
          },
        }
      : {}),
    AddressId: addressId,
    Classifications: random.subset(CLASSIFICATIONS, 2),
    Options: random.subset(OPTIONS, 2),
    ItalianDestinationCode: null,
    ItalianFiscalCode: null,
    CompanyId: random.chance(0.1) ? random.pick(model.world.companyIds) : null,
    MergeTargetId: null,
    ActivityState: 'Active',
    IsActive: true,
    PreferredSpaceFeatures: random.subset(FEATURES, 3),
    CreatorProfileId: profile,
    UpdaterProfileId: profile,
  };
}

/** An account note on a customer (mostly) or a company. */
export function makeAccountNote(model: SimModel, customerId: string | null): AccountNote {
  const random = model.random;
  const creator = staffProfile(model);
  return {
    Id: random.uuid(),
    AccountId: customerId ?? random.pick(model.world.companyIds),
    Content: random.pick(NOTE_TEXTS),
    AccountType: customerId ? 'Customer' : 'Company',
    Classifications: [random.pick(NOTE_CLASSES)],
    IsActive: true,
    CreatorProfile: creator,
    UpdaterProfile: creator,
  };
}

/** The profile data of an integration: it has no enterprise profile (connector-api.md, Profile data). */
const INTEGRATION_PROFILE: ProfileData = {
  Discriminator: 'Integration',
  EnterpriseProfile: null,
};

/**
 * Who wrote a membership, as the service tells it (connector-api.md, Loyalty membership: the
 * profiles "may be null in responses"): the loyalty provider's integration for one it knows
 * (a ProviderMembershipId), no one for a fifth of the others, hotel staff for the rest. Decided
 * from the record, so the dataset's random draws stay the same. Pure.
 */
function membershipWriter(
  membership: Pick<LoyaltyMembership, 'ProviderMembershipId' | 'Points'>,
  staff: ProfileData,
): ProfileData | null {
  if (membership.ProviderMembershipId !== null && membership.ProviderMembershipId !== undefined)
    return INTEGRATION_PROFILE;
  return (membership.Points ?? 0) % 5 === 0 ? null : staff;
}

/** A loyalty membership of a customer in one of the chain's programs. */
export function makeLoyaltyMembership(
  model: SimModel,
  customerId: string,
  programId: string,
  nowMs: number,
  chainId = model.world.chainId,
): LoyaltyMembership {
  const random = model.random;
  const staff = staffProfile(model);
  const code = `${random.int(100_000, 999_999)}${random.int(1000, 9999)}`;
  const membership = {
    Id: random.uuid(),
    ChainId: chainId,
    AccountId: customerId,
    LoyaltyProgramId: programId,
    State: random.pick([
      'New',
      'Pending',
      'Enrolled',
      'Enrolled',
      'Enrolled',
      'Canceled',
      'Declined',
    ] as const),
    IsPrimary: random.chance(0.8),
    ProviderMembershipId: random.chance(0.5) ? `PRV-${code}` : null,
    Code: code,
    Points: random.int(0, 50_000),
    ExpirationDate: random.chance(0.5) ? iso(nowMs + random.int(30, 900) * DAY_MS) : null,
    Url: null,
    LoyaltyTierId: null,
  };
  const writer = membershipWriter(membership, staff);
  return withMembers(membership, { CreatorProfile: writer, UpdaterProfile: writer });
}

/** A payment request in `state`, issued to a customer of an enterprise at `createdMs`. */
export function makePaymentRequest(
  model: SimModel,
  enterpriseIndex: number,
  customerId: string,
  state: PaymentRequest['State'],
  createdMs: number,
): PaymentRequest {
  const random = model.random;
  const enterprise = model.world.enterprises[enterpriseIndex]!;
  const factor = enterprise.currency === 'CZK' ? 25 : 1;
  return {
    Id: random.uuid(),
    EnterpriseId: enterprise.Id,
    AccountId: customerId,
    CustomerId: customerId,
    ReservationGroupId: null,
    ReservationId: null,
    State: state,
    Amount: grossAmount(
      random.money(50, 900) * factor,
      enterprise.currency,
      enterprise.taxRate,
      enterprise.taxRateCode,
    ),
    Type: random.pick(['Payment', 'Preauthorization'] as const),
    Reason: random.pick(['Deposit', 'Prepayment', 'PaymentCardMissing', 'Fee', 'Other'] as const),
    ExpirationUtc: iso(createdMs + 7 * DAY_MS),
    Description: random.pick([
      'Deposit for your stay',
      'Prepayment of the booking',
      'Záloha na pobyt',
    ]),
    Notes: random.chance(0.3) ? 'Sent by e-mail' : null,
    CreatedUtc: iso(createdMs),
    UpdatedUtc: iso(createdMs),
  };
}

/** A reservation group of an enterprise. */
export function makeReservationGroup(model: SimModel, enterpriseIndex: number): ReservationGroup {
  const random = model.random;
  const viaChannel = random.chance(0.4);
  return {
    Id: random.uuid(),
    Name: random.pick(GROUP_NAMES),
    ChannelManager: viaChannel ? random.pick(['SiteMinder', 'Booking.com', 'Expedia']) : null,
    ChannelManagerGroupNumber: viaChannel ? String(random.int(1_000_000, 9_999_999)) : null,
    EnterpriseId: model.world.enterprises[enterpriseIndex]!.Id,
  };
}
