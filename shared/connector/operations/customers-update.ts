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
 * Blank text (empty or only white space). customers/update rule 1 reads a blank field as left
 * out, so a blank passes where a field otherwise has a format (an email, a date, an id).
 */
export const BlankTextSchema = z.string().regex(/^\s*$/, { message: 'must be blank', abort: true });

/**
 * `schema`, or blank text (rule 1). A value that is neither is reported with `schema`'s issue,
 * not as "must be blank": the blank check aborts, so zod reports the other member alone or
 * both (fieldIssues names the first of a tie).
 */
function orBlank<T extends z.ZodType>(schema: T) {
  return z.union([schema, BlankTextSchema]);
}

const date = orBlank(DateSchema).nullable().optional();

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
    Expiration: date,
    Issuance: date,
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
 * stored value (rule 1: blank text passes every field's format); `Notes` replaces it.
 */
export const CustomersUpdateRequestSchema = z.strictObject({
  // Required with Portfolio Access Tokens (the client adds it), ignored otherwise.
  ChainId: UuidSchema.nullable().optional(),
  CustomerId: UuidSchema,
  Title: orBlank(CustomerTitleSchema).optional(),
  FirstName: text,
  LastName: text,
  SecondLastName: text,
  NationalityCode: countryCode,
  Sex: orBlank(CustomerSexSchema).optional(),
  BirthDate: date,
  BirthPlace: text,
  Occupation: text,
  // An address of any script (RFC 6531): the contract asks for an email, and the connector
  // keeps such addresses on its records (zod's default pattern takes ASCII only).
  Email: orBlank(z.email({ pattern: z.regexes.unicodeEmail }))
    .nullable()
    .optional(),
  Phone: orBlank(PhoneNumberSchema).nullable().optional(),
  LoyaltyCode: text,
  Notes: text,
  CarRegistrationNumber: z.string().max(CUSTOMER_SHORT_TEXT_MAX_CHARS).nullable().optional(),
  DietaryRequirements: z.string().max(CUSTOMER_SHORT_TEXT_MAX_CHARS).nullable().optional(),
  TaxIdentificationNumber: text,
  CompanyId: orBlank(UuidSchema).nullable().optional(),
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
