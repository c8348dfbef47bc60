import { z } from 'zod';
import { DateSchema, UuidSchema, updateValue } from '../records/common.ts';
import {
  CUSTOMER_SHORT_TEXT_MAX_CHARS,
  CustomerClassificationSchema,
  CustomerOptionSchema,
  CustomerSchema,
  CustomerSexSchema,
  CustomerTitleSchema,
} from '../records/customer.ts';
import { CountryCodeRequestSchema } from './country-code.ts';

const text = z.string().nullable().optional();
const countryCode = CountryCodeRequestSchema.nullable().optional();

/**
 * A telephone number: digits with the usual separators, an optional leading `+`, and an area
 * code in parentheses at the start (`(555) 123-4567`).
 */
export const PhoneNumberSchema = z
  .string()
  .regex(/^\+?\(?[0-9][0-9 ()./-]*$/, 'must be a telephone number');

const identityDocument = z
  .strictObject({
    Number: text,
    Expiration: DateSchema.nullable().optional(),
    Issuance: DateSchema.nullable().optional(),
    IssuingCountryCode: countryCode,
    IssuingCity: text,
  })
  .optional();

function uniqueValues<T extends z.ZodType>(item: T) {
  return z
    .array(item)
    .refine((values) => new Set(values).size === values.length, 'values must be unique')
    .nullable()
    .optional();
}

/**
 * Request of customers/update (without the envelope). A field left out or blank keeps the
 * stored value; `Notes` replaces it.
 */
export const CustomersUpdateRequestSchema = z.strictObject({
  // Required with Portfolio Access Tokens (the client adds it), ignored otherwise.
  ChainId: UuidSchema.nullable().optional(),
  CustomerId: UuidSchema,
  Title: CustomerTitleSchema.optional(),
  FirstName: text,
  LastName: text,
  SecondLastName: text,
  NationalityCode: countryCode,
  Sex: CustomerSexSchema.optional(),
  BirthDate: DateSchema.nullable().optional(),
  BirthPlace: text,
  Occupation: text,
  Email: z.email().nullable().optional(),
  Phone: PhoneNumberSchema.nullable().optional(),
  LoyaltyCode: text,
  Notes: text,
  CarRegistrationNumber: z.string().max(CUSTOMER_SHORT_TEXT_MAX_CHARS).nullable().optional(),
  DietaryRequirements: z.string().max(CUSTOMER_SHORT_TEXT_MAX_CHARS).nullable().optional(),
  TaxIdentificationNumber: text,
  CompanyId: UuidSchema.nullable().optional(),
  Address: z
    .strictObject({
      Line1: text,
      Line2: text,
      City: text,
      PostalCode: text,
      CountryCode: countryCode,
      CountrySubdivisionCode: text,
    })
    .optional(),
  IdentityCard: identityDocument,
  Passport: identityDocument,
  Visa: identityDocument,
  DriversLicense: identityDocument,
  Classifications: uniqueValues(CustomerClassificationSchema.exclude(['None'])),
  Options: uniqueValues(CustomerOptionSchema.exclude(['None'])),
  ItalianDestinationCode: updateValue(z.string().nullable()).optional(),
  ItalianFiscalCode: updateValue(z.string().nullable()).optional(),
});
/** Request of customers/update. */
export type CustomersUpdateRequest = z.input<typeof CustomersUpdateRequestSchema>;

/** Response of customers/update: the updated customer. */
export const CustomersUpdateResponseSchema = CustomerSchema;
/** Response of customers/update. */
export type CustomersUpdateResponse = z.infer<typeof CustomersUpdateResponseSchema>;
