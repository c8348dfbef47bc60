import { z } from 'zod';
import { DateSchema, DateTimeSchema, UuidSchema } from './common.ts';

/** Customer titles. */
export const CustomerTitleSchema = z.enum(['Mister', 'Miss', 'Misses']);
/** Customer title. */
export type CustomerTitle = z.infer<typeof CustomerTitleSchema>;

/** Customer sexes. */
export const CustomerSexSchema = z.enum(['Male', 'Female']);
/** Customer sex. */
export type CustomerSex = z.infer<typeof CustomerSexSchema>;

/** Customer classifications. */
export const CustomerClassificationSchema = z.enum([
  'None',
  'PaymasterAccount',
  'Blacklist',
  'Media',
  'LoyaltyProgram',
  'PreviousComplaint',
  'Returning',
  'Staff',
  'FriendOrFamily',
  'TopManagement',
  'Important',
  'VeryImportant',
  'Problematic',
  'Cashlist',
  'DisabledPerson',
  'Military',
  'Airline',
  'HealthCompliant',
  'InRoom',
  'WaitingForRoom',
  'Student',
]);
/** Customer classification. */
export type CustomerClassification = z.infer<typeof CustomerClassificationSchema>;

/** Customer options (consents and billing flags). */
export const CustomerOptionSchema = z.enum([
  'None',
  'SendMarketingEmails',
  'Invoiceable',
  'BillAddressObjection',
  'SendMarketingPostalMail',
  'SendPartnerMarketingEmails',
  'SendPartnerMarketingPostalMail',
  'WithdrawCardConsent',
  'GuestPhotoConsent',
  'IdPhotosConsent',
]);
/** Customer option. */
export type CustomerOption = z.infer<typeof CustomerOptionSchema>;

/** Space features: a customer's preferences and resource feature classifications. */
export const SpaceFeatureSchema = z.enum([
  'SeaView',
  'RiverView',
  'OceanView',
  'TwinBeds',
  'DoubleBed',
  'RollawayBed',
  'UpperBed',
  'LowerBed',
  'Balcony',
  'AccessibleBathroom',
  'AccessibleRoom',
  'ElevatorAccess',
  'HighFloor',
  'Kitchenette',
  'AirConditioning',
  'PrivateJacuzzi',
  'PrivateSauna',
  'EnsuiteRoom',
  'PrivateBathroom',
  'SharedBathroom',
]);
/** Space feature. */
export type SpaceFeature = z.infer<typeof SpaceFeatureSchema>;

/** Kinds of identity document. */
export const IdentityDocumentTypeSchema = z.enum([
  'IdentityCard',
  'Passport',
  'Visa',
  'DriversLicense',
]);
/** Kind of identity document. */
export type IdentityDocumentType = z.infer<typeof IdentityDocumentTypeSchema>;

/** An identity document of a customer. */
export const IdentityDocumentSchema = z.looseObject({
  Id: UuidSchema,
  CustomerId: UuidSchema,
  Type: IdentityDocumentTypeSchema,
  Number: z.string().nullable().optional(),
  Expiration: DateSchema.nullable().optional(),
  Issuance: DateSchema.nullable().optional(),
  IssuingCountryCode: z.string().nullable().optional(),
  IssuingCity: z.string().nullable().optional(),
  // Only needed for Spanish identity cards in Spanish hotels.
  IdentityDocumentSupportNumber: z.string().nullable().optional(),
});
/** An identity document of a customer. */
export type IdentityDocument = z.infer<typeof IdentityDocumentSchema>;

/** A postal address. */
export const AddressSchema = z.looseObject({
  Id: UuidSchema,
  Line1: z.string().nullable().optional(),
  Line2: z.string().nullable().optional(),
  City: z.string().nullable().optional(),
  PostalCode: z.string().nullable().optional(),
  CountryCode: z.string().nullable().optional(),
  CountrySubdivisionCode: z.string().nullable().optional(),
  Latitude: z.number().nullable().optional(),
  Longitude: z.number().nullable().optional(),
});
/** A postal address. */
export type Address = z.infer<typeof AddressSchema>;

/** Longest car registration number or dietary requirements text. */
export const CUSTOMER_SHORT_TEXT_MAX_CHARS = 255;

/** A customer (guest) profile, as customers/getAll and customers/update return it. */
export const CustomerSchema = z.looseObject({
  Id: UuidSchema,
  ChainId: UuidSchema,
  Number: z.string().min(1),
  // Optional fields (the contract's "N") accept null as well as absence throughout: a service
  // may write an absent value as null, and one such record must not be set aside.
  Title: CustomerTitleSchema.nullable().optional(),
  Sex: CustomerSexSchema.nullable().optional(),
  FirstName: z.string().nullable().optional(),
  LastName: z.string().min(1),
  SecondLastName: z.string().nullable().optional(),
  NationalityCode: z.string().nullable().optional(),
  PreferredLanguageCode: z.string().nullable().optional(),
  LanguageCode: z.string().nullable().optional(),
  BirthDate: DateSchema.nullable().optional(),
  BirthPlace: z.string().nullable().optional(),
  Occupation: z.string().nullable().optional(),
  // Not format-checked: a stored address the service accepted must not break a stream.
  Email: z.string().nullable().optional(),
  HasOtaEmail: z.boolean().nullable().optional(),
  Phone: z.string().nullable().optional(),
  TaxIdentificationNumber: z.string().nullable().optional(),
  LoyaltyCode: z.string().nullable().optional(),
  AccountingCode: z.string().nullable().optional(),
  BillingCode: z.string().nullable().optional(),
  Notes: z.string().nullable().optional(),
  CarRegistrationNumber: z.string().max(CUSTOMER_SHORT_TEXT_MAX_CHARS).nullable().optional(),
  DietaryRequirements: z.string().max(CUSTOMER_SHORT_TEXT_MAX_CHARS).nullable().optional(),
  CreatedUtc: DateTimeSchema,
  UpdatedUtc: DateTimeSchema,
  Passport: IdentityDocumentSchema.nullable().optional(),
  IdentityCard: IdentityDocumentSchema.nullable().optional(),
  Visa: IdentityDocumentSchema.nullable().optional(),
  DriversLicense: IdentityDocumentSchema.nullable().optional(),
  // Left out or null when the request's Extent.Addresses is false.
  Address: AddressSchema.nullable().optional(),
  AddressId: UuidSchema.nullable().optional(),
  Classifications: z.array(CustomerClassificationSchema),
  Options: z.array(CustomerOptionSchema),
  ItalianDestinationCode: z.string().nullable().optional(),
  ItalianFiscalCode: z.string().nullable().optional(),
  CompanyId: UuidSchema.nullable().optional(),
  MergeTargetId: UuidSchema.nullable().optional(),
  // The contract gives "active or deleted" without exact spelling: kept a plain string.
  ActivityState: z.string().nullable().optional(),
  IsActive: z.boolean(),
  PreferredSpaceFeatures: z.array(SpaceFeatureSchema),
  CreatorProfileId: UuidSchema,
  UpdaterProfileId: UuidSchema,
});
/** A customer (guest) profile. */
export type Customer = z.infer<typeof CustomerSchema>;
