import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AccountingCategorySchema,
  AccountNoteSchema,
  AddressSchema,
  AmountSchema,
  addUtcMonths,
  BillingAutomationSchema,
  ConnectorErrorBodySchema,
  CustomerSchema,
  DateTimeSchema,
  EnvelopeSchema,
  ExportSchema,
  IdentityDocumentSchema,
  isWithinThreeMonths,
  LimitationSchema,
  LocalizedTextSchema,
  LoyaltyMembershipSchema,
  LoyaltyProgramSchema,
  OrderItemSchema,
  PaymentRequestSchema,
  ProductCategorySchema,
  ProductPriceSchema,
  ReservationGroupSchema,
  ResourceCategoryAssignmentSchema,
  ResourceCategoryImageAssignmentSchema,
  ResourceCategorySchema,
  ResourceFeatureAssignmentSchema,
  ResourceFeatureSchema,
  ResourceSchema,
  RoutingRuleSchema,
  TaxEnvironmentSchema,
  TimeFilterIntervalSchema,
  UuidSchema,
  VoucherSchema,
} from '../../shared/connector/records/index.ts';
import { toValidationError } from '../../shared/errors.ts';
import {
  SAMPLE_ACCOUNT_NOTE,
  SAMPLE_ACCOUNTING_CATEGORY,
  SAMPLE_ADDRESS,
  SAMPLE_BILLING_AUTOMATION,
  SAMPLE_CUSTOMER,
  SAMPLE_EXPORT,
  SAMPLE_IDENTITY_DOCUMENT,
  SAMPLE_LOYALTY_MEMBERSHIP,
  SAMPLE_LOYALTY_PROGRAM,
  SAMPLE_ORDER_ITEM,
  SAMPLE_PAYMENT_REQUEST,
  SAMPLE_PRODUCT_CATEGORY,
  SAMPLE_PRODUCT_PRICE,
  SAMPLE_RESERVATION_GROUP,
  SAMPLE_RESOURCE,
  SAMPLE_RESOURCE_CATEGORY,
  SAMPLE_RESOURCE_CATEGORY_ASSIGNMENT,
  SAMPLE_RESOURCE_CATEGORY_IMAGE_ASSIGNMENT,
  SAMPLE_RESOURCE_FEATURE,
  SAMPLE_RESOURCE_FEATURE_ASSIGNMENT,
  SAMPLE_ROUTING_RULE,
  SAMPLE_TAX_ENVIRONMENT,
  SAMPLE_VOUCHER,
} from './fixtures.ts';

const RECORDS: [string, z.ZodType, Record<string, unknown>][] = [
  ['Customer', CustomerSchema, SAMPLE_CUSTOMER],
  ['IdentityDocument', IdentityDocumentSchema, SAMPLE_IDENTITY_DOCUMENT],
  ['Address', AddressSchema, SAMPLE_ADDRESS],
  ['Resource', ResourceSchema, SAMPLE_RESOURCE],
  ['ResourceCategory', ResourceCategorySchema, SAMPLE_RESOURCE_CATEGORY],
  [
    'ResourceCategoryAssignment',
    ResourceCategoryAssignmentSchema,
    SAMPLE_RESOURCE_CATEGORY_ASSIGNMENT,
  ],
  [
    'ResourceCategoryImageAssignment',
    ResourceCategoryImageAssignmentSchema,
    SAMPLE_RESOURCE_CATEGORY_IMAGE_ASSIGNMENT,
  ],
  ['ResourceFeature', ResourceFeatureSchema, SAMPLE_RESOURCE_FEATURE],
  [
    'ResourceFeatureAssignment',
    ResourceFeatureAssignmentSchema,
    SAMPLE_RESOURCE_FEATURE_ASSIGNMENT,
  ],
  ['AccountNote', AccountNoteSchema, SAMPLE_ACCOUNT_NOTE],
  ['AccountingCategory', AccountingCategorySchema, SAMPLE_ACCOUNTING_CATEGORY],
  ['BillingAutomation', BillingAutomationSchema, SAMPLE_BILLING_AUTOMATION],
  ['LoyaltyMembership', LoyaltyMembershipSchema, SAMPLE_LOYALTY_MEMBERSHIP],
  ['LoyaltyProgram', LoyaltyProgramSchema, SAMPLE_LOYALTY_PROGRAM],
  ['PaymentRequest', PaymentRequestSchema, SAMPLE_PAYMENT_REQUEST],
  ['ReservationGroup', ReservationGroupSchema, SAMPLE_RESERVATION_GROUP],
  ['ProductCategory', ProductCategorySchema, SAMPLE_PRODUCT_CATEGORY],
  ['RoutingRule', RoutingRuleSchema, SAMPLE_ROUTING_RULE],
  ['OrderItem', OrderItemSchema, SAMPLE_ORDER_ITEM],
  ['Voucher', VoucherSchema, SAMPLE_VOUCHER],
  ['Export', ExportSchema, SAMPLE_EXPORT],
  ['TaxEnvironment', TaxEnvironmentSchema, SAMPLE_TAX_ENVIRONMENT],
  ['ProductPrice', ProductPriceSchema, SAMPLE_PRODUCT_PRICE],
];

/** The path of the first issue, as the rest of the project reports it. */
function failurePath(schema: z.ZodType, value: unknown): string {
  const result = schema.safeParse(value);
  if (result.success) throw new Error('expected the value to be rejected');
  return toValidationError('value', result.error).path;
}

/**
 * The paths of the fields, in `schema` and the objects nested in it, that may be left out but
 * are refused when null: the contract marks them optional, and a service that writes an absent
 * optional value as null must not have its record set aside for it.
 */
function optionalFieldsRefusingNull(schema: z.core.$ZodType, path = ''): string[] {
  const def = schema._zod.def;
  if (def.type === 'optional' || def.type === 'nullable') {
    return optionalFieldsRefusingNull((schema as z.ZodOptional | z.ZodNullable).unwrap(), path);
  }
  if (def.type === 'array')
    return optionalFieldsRefusingNull((schema as z.ZodArray).element, `${path}[]`);
  if (def.type !== 'object') return [];
  return Object.entries((schema as z.ZodObject).shape).flatMap(([key, field]) => {
    const fieldPath = path ? `${path}.${key}` : key;
    const refusesNull = z.safeParse(field, undefined).success && !z.safeParse(field, null).success;
    return [...(refusesNull ? [fieldPath] : []), ...optionalFieldsRefusingNull(field, fieldPath)];
  });
}

describe('record schemas', () => {
  it.each(RECORDS)('%s: the sample parses unchanged', (_name, schema, sample) => {
    expect(schema.parse(sample)).toEqual(sample);
  });

  it.each(RECORDS)('%s: an unknown extra field passes through', (_name, schema, sample) => {
    const parsed = schema.parse({ ...sample, FieldAddedNextYear: { nested: [1, 'two'] } });
    expect(parsed).toMatchObject({ FieldAddedNextYear: { nested: [1, 'two'] } });
  });

  it.each(RECORDS)('%s: a missing required field is named', (_name, schema, sample) => {
    const required = ['Id', 'ProductId', 'Code'].find((field) => field in sample)!;
    const { [required]: _dropped, ...rest } = sample;
    expect(failurePath(schema, rest)).toBe(required);
  });

  it.each(RECORDS)('%s: a field it may leave out may also be null', (_name, schema) => {
    expect(optionalFieldsRefusingNull(schema)).toEqual([]);
  });

  it('keeps a customer whose optional Title, Sex and HasOtaEmail are null', () => {
    const sent = { ...SAMPLE_CUSTOMER, Title: null, Sex: null, HasOtaEmail: null };
    expect(CustomerSchema.parse(sent)).toEqual(sent);
  });

  it('keeps unknown fields of nested response objects', () => {
    const parsed = CustomerSchema.parse({
      ...SAMPLE_CUSTOMER,
      Address: { ...SAMPLE_ADDRESS, Line3: 'Hof 2' },
    });
    expect(parsed.Address).toMatchObject({ Line3: 'Hof 2' });
  });

  it('rejects customer enum values outside the contract, naming the element', () => {
    expect(
      failurePath(CustomerSchema, { ...SAMPLE_CUSTOMER, Classifications: ['Returning', 'Vip'] }),
    ).toBe('Classifications[1]');
    expect(failurePath(CustomerSchema, { ...SAMPLE_CUSTOMER, Title: 'Doctor' })).toBe('Title');
  });

  it('accepts a null customer ActivityState and any spelling of it', () => {
    expect(
      CustomerSchema.parse({ ...SAMPLE_CUSTOMER, ActivityState: null }).ActivityState,
    ).toBeNull();
    expect(
      CustomerSchema.parse({ ...SAMPLE_CUSTOMER, ActivityState: 'deleted' }).ActivityState,
    ).toBe('deleted');
  });

  it('accepts a customer returned without its address', () => {
    const { Address: _dropped, ...withoutAddress } = SAMPLE_CUSTOMER;
    expect(CustomerSchema.safeParse(withoutAddress).success).toBe(true);
    expect(CustomerSchema.safeParse({ ...SAMPLE_CUSTOMER, Address: null }).success).toBe(true);
  });

  it('applies the customer 255-character limits', () => {
    expect(
      CustomerSchema.safeParse({ ...SAMPLE_CUSTOMER, CarRegistrationNumber: 'X'.repeat(255) })
        .success,
    ).toBe(true);
    expect(
      failurePath(CustomerSchema, { ...SAMPLE_CUSTOMER, DietaryRequirements: 'X'.repeat(256) }),
    ).toBe('DietaryRequirements');
  });

  it('keeps plain strings where the contract shows no value set', () => {
    expect(ResourceSchema.parse({ ...SAMPLE_RESOURCE, State: 'OutOfOrder' }).State).toBe(
      'OutOfOrder',
    );
    expect(
      ExportSchema.parse({ ...SAMPLE_EXPORT, Status: 'Failed', EntityType: 'Bill' }).Status,
    ).toBe('Failed');
    expect(LoyaltyProgramSchema.parse({ ...SAMPLE_LOYALTY_PROGRAM, Type: 'Tiered' }).Type).toBe(
      'Tiered',
    );
  });

  it('bounds payment request Description to 1..1000 and Notes to 1000', () => {
    expect(failurePath(PaymentRequestSchema, { ...SAMPLE_PAYMENT_REQUEST, Description: '' })).toBe(
      'Description',
    );
    expect(
      failurePath(PaymentRequestSchema, {
        ...SAMPLE_PAYMENT_REQUEST,
        Description: 'd'.repeat(1001),
      }),
    ).toBe('Description');
    expect(
      failurePath(PaymentRequestSchema, { ...SAMPLE_PAYMENT_REQUEST, Notes: 'n'.repeat(1001) }),
    ).toBe('Notes');
  });

  it('bounds billing automation arrays: 1000 companies, 20 assignments, 100 ids', () => {
    const company = SAMPLE_BILLING_AUTOMATION.CompaniesWithRelations[0]!;
    const assignment = SAMPLE_BILLING_AUTOMATION.Assignments![0]!;
    expect(
      failurePath(BillingAutomationSchema, {
        ...SAMPLE_BILLING_AUTOMATION,
        CompaniesWithRelations: Array.from({ length: 1001 }, () => company),
      }),
    ).toBe('CompaniesWithRelations');
    expect(
      failurePath(BillingAutomationSchema, {
        ...SAMPLE_BILLING_AUTOMATION,
        Assignments: Array.from({ length: 21 }, () => assignment),
      }),
    ).toBe('Assignments');
    expect(
      failurePath(BillingAutomationSchema, {
        ...SAMPLE_BILLING_AUTOMATION,
        Assignments: [{ ...assignment, RateIds: Array.from({ length: 101 }, () => assignment.Id) }],
      }),
    ).toBe('Assignments[0].RateIds');
  });

  it('accepts null profiles on loyalty memberships but requires the fields', () => {
    expect(
      LoyaltyMembershipSchema.safeParse({ ...SAMPLE_LOYALTY_MEMBERSHIP, CreatorProfile: null })
        .success,
    ).toBe(true);
    const { UpdaterProfile: _dropped, ...rest } = SAMPLE_LOYALTY_MEMBERSHIP;
    expect(failurePath(LoyaltyMembershipSchema, rest)).toBe('UpdaterProfile');
  });

  it('requires every amount field, naming nested paths', () => {
    const { Breakdown: _dropped, ...rest } = SAMPLE_PAYMENT_REQUEST.Amount;
    expect(failurePath(PaymentRequestSchema, { ...SAMPLE_PAYMENT_REQUEST, Amount: rest })).toBe(
      'Amount.Breakdown',
    );
    expect(failurePath(AmountSchema, { ...SAMPLE_PAYMENT_REQUEST.Amount, Currency: 'euro' })).toBe(
      'Currency',
    );
  });
});

describe('JSON Schema of the records', () => {
  it.each(RECORDS)('%s: converts to JSON Schema for the event catalogue', (_name, schema) => {
    const json = z.toJSONSchema(schema, { io: 'output' });
    expect(json).toMatchObject({ type: 'object', additionalProperties: {} });
  });

  it('describes identifiers, timestamps and localized text keys', () => {
    const json = JSON.stringify(z.toJSONSchema(ResourceSchema));
    expect(json).toContain('"format":"uuid"');
    expect(json).toContain('"format":"date-time"');
    expect(json).toContain('"propertyNames"');
  });
});

describe('common schemas', () => {
  it('accepts GUIDs in any case and rejects other strings', () => {
    expect(UuidSchema.safeParse('35D4B117-4E60-44A3-9580-C582117EFF98').success).toBe(true);
    expect(UuidSchema.safeParse('35d4b117-4e60-44a3-9580').success).toBe(false);
  });

  it('takes UTC timestamps with .NET precision and rejects local ones', () => {
    expect(DateTimeSchema.safeParse('2024-05-17T16:45:03.1234567Z').success).toBe(true);
    expect(DateTimeSchema.safeParse('2024-05-17T16:45:03').success).toBe(false);
  });

  it('accepts only xx-XX keys in localized text', () => {
    expect(LocalizedTextSchema.safeParse({}).success).toBe(true);
    expect(LocalizedTextSchema.safeParse({ 'de-AT': 'Zimmer' }).success).toBe(true);
    expect(failurePath(LocalizedTextSchema, { english: 'Room' })).toBe('english');
  });

  it('bounds Limitation.Count to 1..1000', () => {
    expect(LimitationSchema.safeParse({ Count: 1000, Cursor: null }).success).toBe(true);
    expect(failurePath(LimitationSchema, { Count: 0 })).toBe('Count');
    expect(failurePath(LimitationSchema, { Count: 1001 })).toBe('Count');
    expect(failurePath(LimitationSchema, { Count: 2.5 })).toBe('Count');
  });

  it('requires non-empty envelope fields and nothing else', () => {
    expect(
      EnvelopeSchema.safeParse({ ClientToken: 'c', AccessToken: 'a', Client: 'x 1.0' }).success,
    ).toBe(true);
    expect(failurePath(EnvelopeSchema, { ClientToken: 'c', AccessToken: '', Client: 'x' })).toBe(
      'AccessToken',
    );
  });

  it('parses error bodies with any Details', () => {
    const body = {
      Message: 'Invalid AccessToken.',
      RequestId: 'r-1',
      Details: { Field: 'AccessToken' },
    };
    expect(ConnectorErrorBodySchema.parse(body)).toEqual(body);
    expect(ConnectorErrorBodySchema.parse({})).toEqual({});
  });
});

describe('time filter intervals', () => {
  it('accepts an interval of exactly three calendar months (half-open end)', () => {
    expect(isWithinThreeMonths('2024-01-31T10:00:00Z', '2024-04-30T10:00:00Z')).toBe(true);
    expect(isWithinThreeMonths('2024-01-01T00:00:00Z', '2024-04-01T00:00:00Z')).toBe(true);
  });

  it('rejects an interval one millisecond longer than three months', () => {
    expect(isWithinThreeMonths('2024-01-01T00:00:00Z', '2024-04-01T00:00:00.001Z')).toBe(false);
  });

  it('clamps month ends instead of overflowing into the next month', () => {
    expect(new Date(addUtcMonths(Date.parse('2024-11-30T12:00:00Z'), 3)).toISOString()).toBe(
      '2025-02-28T12:00:00.000Z',
    );
    expect(new Date(addUtcMonths(Date.parse('2023-11-30T12:00:00Z'), 3)).toISOString()).toBe(
      '2024-02-29T12:00:00.000Z',
    );
    expect(isWithinThreeMonths('2024-11-30T00:00:00Z', '2025-03-01T00:00:00Z')).toBe(false);
  });

  it('rejects an interval whose start is after its end', () => {
    expect(isWithinThreeMonths('2024-02-01T00:00:00Z', '2024-01-01T00:00:00Z')).toBe(false);
    expect(
      failurePath(TimeFilterIntervalSchema, {
        StartUtc: '2024-02-01T00:00:00Z',
        EndUtc: '2024-01-01T00:00:00Z',
      }),
    ).toBe('EndUtc');
  });

  it('accepts open-ended intervals', () => {
    expect(
      TimeFilterIntervalSchema.safeParse({ StartUtc: '2020-01-01T00:00:00Z', EndUtc: null })
        .success,
    ).toBe(true);
    expect(TimeFilterIntervalSchema.safeParse({ EndUtc: '2024-01-01T00:00:00Z' }).success).toBe(
      true,
    );
  });

  it('rejects a four-month interval, naming EndUtc', () => {
    expect(
      failurePath(TimeFilterIntervalSchema, {
        StartUtc: '2024-01-01T00:00:00Z',
        EndUtc: '2024-05-01T00:00:00Z',
      }),
    ).toBe('EndUtc');
  });
});
