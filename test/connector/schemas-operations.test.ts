import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { PhoneNumberSchema } from '../../shared/connector/operations/customers-update.ts';
import { productPricesFromPricing } from '../../shared/connector/operations/products-get-pricing.ts';
import {
  fullRequestSchema,
  isOperationName,
  isPaginatedOperationName,
  OPERATION_NAMES,
  OPERATIONS,
  type OperationName,
  type OperationRequest,
  type OperationResponse,
  PAGINATED_OPERATION_NAMES,
  type PaginatedOperationName,
} from '../../shared/connector/operations.ts';
import { ProductPriceSchema } from '../../shared/connector/records/index.ts';
import { toValidationError } from '../../shared/errors.ts';
import {
  FIXTURE_IDS,
  SAMPLE_PRODUCT_PRICE,
  SAMPLE_REQUESTS,
  SAMPLE_RESPONSES,
} from './fixtures.ts';

const ENVELOPE = { ClientToken: 'ct', AccessToken: 'at', Client: 'change-bridge 0.1.0' };
const ids = FIXTURE_IDS;

/** The path of the first issue, as the rest of the project reports it. */
function failurePath(schema: z.ZodType, value: unknown): string {
  const result = schema.safeParse(value);
  if (result.success) throw new Error('expected the value to be rejected');
  return toValidationError('value', result.error).path;
}

function request<N extends OperationName>(name: N, changes: Record<string, unknown>): unknown {
  return { ...SAMPLE_REQUESTS[name], ...changes };
}

const uuids = (count: number) => Array.from({ length: count }, () => ids.customer);

describe('the operation registry', () => {
  it('lists the 20 operations of the contract with their paths', () => {
    expect(OPERATION_NAMES).toHaveLength(20);
    for (const name of OPERATION_NAMES) {
      expect(OPERATIONS[name].name).toBe(name);
      expect(OPERATIONS[name].path).toBe(`/api/connector/v1/${name}`);
    }
  });

  it('marks the ten paginated operations with their item keys', () => {
    expect(
      Object.fromEntries(
        PAGINATED_OPERATION_NAMES.map((name) => [name, OPERATIONS[name].pagination.itemsKey]),
      ),
    ).toEqual({
      'customers/getAll': 'Customers',
      'resources/getAll': 'Resources',
      'accountNotes/getAll': 'AccountNotes',
      'accountingCategories/getAll': 'AccountingCategories',
      'billingAutomations/getAll': 'BillingAutomations',
      'loyaltyMemberships/getAll': 'LoyaltyMemberships',
      'paymentRequests/getAll': 'PaymentRequests',
      'reservationGroups/getAll': 'ReservationGroups',
      'productCategories/getAll': 'ProductCategories',
      'resourceCategoryImageAssignments/getAll': 'ResourceCategoryImageAssignments',
    });
  });

  it('names the Portfolio Access Token scope field where the contract requires one', () => {
    const scoped = OPERATION_NAMES.filter((name) => OPERATIONS[name].portfolioScope !== null).map(
      (name) => [name, OPERATIONS[name].portfolioScope],
    );
    expect(Object.fromEntries(scoped)).toEqual({
      'customers/getAll': 'ChainIds',
      'customers/update': 'ChainId',
      'loyaltyPrograms/update': 'ChainId',
      'paymentRequests/add': 'EnterpriseId',
      'vouchers/add': 'EnterpriseId',
    });
  });

  it('takes telephone numbers in their usual forms and refuses other text', () => {
    for (const phone of ['+420 601 234 567', '(555) 123-4567', '+1 (555) 123-4567', '030/1234.56'])
      expect(PhoneNumberSchema.safeParse(phone).success, phone).toBe(true);
    for (const phone of ['call me', '', '()', '+', 'x123'])
      expect(PhoneNumberSchema.safeParse(phone).success, phone).toBe(false);
  });

  it('recognises operation names', () => {
    expect(isOperationName('customers/getAll')).toBe(true);
    expect(isOperationName('orderItems/getAll')).toBe(false);
    expect(isOperationName('toString')).toBe(false);
    expect(isPaginatedOperationName('resources/getAll')).toBe(true);
    expect(isPaginatedOperationName('exports/getAll')).toBe(false);
  });

  it('keeps the precise request and response types of each operation', () => {
    expectTypeOf<
      OperationRequest<'customers/getAll'>['Limitation']['Count']
    >().toEqualTypeOf<number>();
    expectTypeOf<OperationRequest<'customers/getAll'>['CompanyIds']>().toEqualTypeOf<
      string[] | undefined
    >();
    expectTypeOf<
      OperationResponse<'customers/getAll'>['Customers'][number]['LastName']
    >().toEqualTypeOf<string>();
    expectTypeOf<OperationResponse<'products/getPricing'>['TimeUnitStartsUtc']>().toEqualTypeOf<
      string[]
    >();
    expectTypeOf<'exports/getAll'>().not.toExtend<PaginatedOperationName>();
    expectTypeOf<'customers/getAll'>().toExtend<PaginatedOperationName>();
  });
});

describe('operation samples', () => {
  it.each(OPERATION_NAMES)('%s: the sample request parses unchanged', (name) => {
    expect(OPERATIONS[name].request.parse(SAMPLE_REQUESTS[name])).toEqual(SAMPLE_REQUESTS[name]);
  });

  it.each(OPERATION_NAMES)('%s: the sample response parses unchanged', (name) => {
    expect(OPERATIONS[name].response.parse(SAMPLE_RESPONSES[name])).toEqual(SAMPLE_RESPONSES[name]);
  });

  it.each(OPERATION_NAMES)('%s: a response with an unknown field keeps it', (name) => {
    const parsed = OPERATIONS[name].response.parse({
      ...SAMPLE_RESPONSES[name],
      Novelty: { Since: 'v2' },
    });
    expect(parsed).toMatchObject({ Novelty: { Since: 'v2' } });
  });

  it.each(OPERATION_NAMES)('%s: a request with an unknown field is rejected', (name) => {
    const result = OPERATIONS[name].request.safeParse({ ...SAMPLE_REQUESTS[name], Unknown: 1 });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.code).toBe('unrecognized_keys');
  });

  it.each(OPERATION_NAMES)('%s: the full body needs the envelope and takes it', (name) => {
    const schema = fullRequestSchema(name);
    expect(schema.parse({ ...ENVELOPE, ...SAMPLE_REQUESTS[name] })).toEqual({
      ...ENVELOPE,
      ...SAMPLE_REQUESTS[name],
    });
    expect(failurePath(schema, { ...SAMPLE_REQUESTS[name], ClientToken: 'ct', Client: 'c' })).toBe(
      'AccessToken',
    );
    expect(fullRequestSchema(name)).toBe(schema);
  });
});

describe('response contracts', () => {
  it('names the record and field of a missing required value', () => {
    const { LastName: _dropped, ...customer } = SAMPLE_RESPONSES['customers/getAll'].Customers[0]!;
    const body = { ...SAMPLE_RESPONSES['customers/getAll'], Customers: [customer] };
    expect(failurePath(OPERATIONS['customers/getAll'].response, body)).toBe(
      'Customers[0].LastName',
    );
  });

  it('requires the Cursor of paginated responses, null allowed', () => {
    const { Cursor: _dropped, ...rest } = SAMPLE_RESPONSES['accountNotes/getAll'];
    expect(failurePath(OPERATIONS['accountNotes/getAll'].response, rest)).toBe('Cursor');
    expect(
      OPERATIONS['accountNotes/getAll'].response.safeParse({ AccountNotes: [], Cursor: null })
        .success,
    ).toBe(true);
  });

  it('accepts null for the nullable item arrays of resources and billing automations', () => {
    expect(
      OPERATIONS['resources/getAll'].response.safeParse({ Resources: null, Cursor: null }).success,
    ).toBe(true);
    expect(
      OPERATIONS['billingAutomations/getAll'].response.safeParse({
        BillingAutomations: null,
        Cursor: null,
      }).success,
    ).toBe(true);
  });

  it('rejects pricing responses whose price lists do not match the time units', () => {
    const pricing = SAMPLE_RESPONSES['products/getPricing'];
    const body = { ...pricing, BaseAmountPrices: pricing.BaseAmountPrices.slice(1) };
    expect(failurePath(OPERATIONS['products/getPricing'].response, body)).toBe('BaseAmountPrices');
  });

  it('splits a pricing response into one product price per time unit', () => {
    const prices = productPricesFromPricing(SAMPLE_RESPONSES['products/getPricing']);
    expect(prices.map((price) => price.TimeUnitStartUtc)).toEqual(
      SAMPLE_RESPONSES['products/getPricing'].TimeUnitStartsUtc,
    );
    expect(prices[0]).toEqual(SAMPLE_PRODUCT_PRICE);
    expect(prices[2]?.AgeCategoryPrices[0]?.Price.GrossValue).toBe(11);
    for (const price of prices) expect(ProductPriceSchema.safeParse(price).success).toBe(true);
  });
});

describe('request bounds', () => {
  const customers = OPERATIONS['customers/getAll'].request;

  it('rejects Limitation.Count 0 and 1001', () => {
    expect(failurePath(customers, request('customers/getAll', { Limitation: { Count: 0 } }))).toBe(
      'Limitation.Count',
    );
    expect(
      failurePath(customers, request('customers/getAll', { Limitation: { Count: 1001 } })),
    ).toBe('Limitation.Count');
  });

  it('requires a Limitation on paginated operations', () => {
    for (const name of PAGINATED_OPERATION_NAMES) {
      const { Limitation: _dropped, ...rest } = SAMPLE_REQUESTS[name];
      expect(failurePath(OPERATIONS[name].request, rest)).toBe('Limitation');
    }
  });

  it('accepts 1000 CustomerIds and rejects 1001 or none', () => {
    expect(
      customers.safeParse(request('customers/getAll', { CustomerIds: uuids(1000) })).success,
    ).toBe(true);
    expect(failurePath(customers, request('customers/getAll', { CustomerIds: uuids(1001) }))).toBe(
      'CustomerIds',
    );
    expect(failurePath(customers, request('customers/getAll', { CustomerIds: [] }))).toBe(
      'CustomerIds',
    );
  });

  it('rejects two CompanyIds on customers/getAll', () => {
    expect(
      customers.safeParse(request('customers/getAll', { CompanyIds: [ids.company] })).success,
    ).toBe(true);
    expect(
      failurePath(
        customers,
        request('customers/getAll', { CompanyIds: [ids.company, ids.customer] }),
      ),
    ).toBe('CompanyIds');
  });

  it('requires CustomerIds when no other customer filter is given', () => {
    const bare = {
      Limitation: { Count: 10 },
      Extent: { Customers: true },
      ActivityStates: ['Active'],
    };
    expect(failurePath(customers, bare)).toBe('CustomerIds');
    expect(customers.safeParse({ ...bare, Emails: ['zoe@example.com'] }).success).toBe(true);
    expect(customers.safeParse({ ...bare, ChainIds: [ids.chain] }).success).toBe(true);
    expect(failurePath(fullRequestSchema('customers/getAll'), { ...ENVELOPE, ...bare })).toBe(
      'CustomerIds',
    );
  });

  it('requires ReservationGroupIds unless EnterpriseIds or UpdatedUtc is given', () => {
    const groups = OPERATIONS['reservationGroups/getAll'].request;
    expect(failurePath(groups, { Limitation: { Count: 10 } })).toBe('ReservationGroupIds');
    expect(
      groups.safeParse({ Limitation: { Count: 10 }, EnterpriseIds: [ids.enterprise] }).success,
    ).toBe(true);
    expect(
      groups.safeParse({ Limitation: { Count: 10 }, ReservationGroupIds: [ids.reservationGroup] })
        .success,
    ).toBe(true);
  });

  it('rejects a four-month UpdatedUtc interval', () => {
    const fourMonths = { StartUtc: '2024-01-01T00:00:00Z', EndUtc: '2024-05-01T00:00:00Z' };
    expect(failurePath(customers, request('customers/getAll', { UpdatedUtc: fourMonths }))).toBe(
      'UpdatedUtc.EndUtc',
    );
    expect(
      failurePath(
        OPERATIONS['accountNotes/getAll'].request,
        request('accountNotes/getAll', { UpdatedUtc: fourMonths }),
      ),
    ).toBe('UpdatedUtc.EndUtc');
  });

  it('rejects an empty and a 1001-item RoutingRuleUpdates', () => {
    const rules = OPERATIONS['routingRules/update'].request;
    const update = SAMPLE_REQUESTS['routingRules/update'].RoutingRuleUpdates[0]!;
    expect(failurePath(rules, { RoutingRuleUpdates: [] })).toBe('RoutingRuleUpdates');
    expect(
      failurePath(rules, { RoutingRuleUpdates: Array.from({ length: 1001 }, () => update) }),
    ).toBe('RoutingRuleUpdates');
    expect(
      rules.safeParse({ RoutingRuleUpdates: Array.from({ length: 1000 }, () => update) }).success,
    ).toBe(true);
  });

  it('rejects 101 billing automation CompanyIds and BillingAutomationIds', () => {
    const billing = OPERATIONS['billingAutomations/getAll'].request;
    expect(
      billing.safeParse(request('billingAutomations/getAll', { CompanyIds: uuids(100) })).success,
    ).toBe(true);
    expect(
      failurePath(billing, request('billingAutomations/getAll', { CompanyIds: uuids(101) })),
    ).toBe('CompanyIds');
    expect(
      failurePath(
        billing,
        request('billingAutomations/getAll', { BillingAutomationIds: uuids(101) }),
      ),
    ).toBe('BillingAutomationIds');
  });

  it('enforces enums, uuids and lengths inside request items', () => {
    expect(
      failurePath(
        OPERATIONS['customers/getAll'].request,
        request('customers/getAll', { ActivityStates: ['Gone'] }),
      ),
    ).toBe('ActivityStates[0]');
    expect(
      failurePath(customers, request('customers/getAll', { CustomerIds: ['not-a-uuid'] })),
    ).toBe('CustomerIds[0]');
    const add = SAMPLE_REQUESTS['paymentRequests/add'].PaymentRequests[0]!;
    expect(
      failurePath(OPERATIONS['paymentRequests/add'].request, {
        PaymentRequests: [{ ...add, Description: 'x'.repeat(1001) }],
      }),
    ).toBe('PaymentRequests[0].Description');
  });

  it('invents no bound the contract does not give: empty AssignedRateIds, Name and AccountingStates items', () => {
    const voucher = SAMPLE_REQUESTS['vouchers/add'].VoucherParameters[0]!;
    const vouchers = OPERATIONS['vouchers/add'].request;
    expect(
      vouchers.safeParse({ VoucherParameters: [{ ...voucher, AssignedRateIds: [], Name: '' }] })
        .success,
    ).toBe(true);
    const items = OPERATIONS['reservations/getAllItems'].request;
    expect(
      items.safeParse({ ReservationIds: [ids.reservation], AccountingStates: [''] }).success,
    ).toBe(true);
    // Where the contract gives a bound, it stays: Description is 1 to 1000 characters.
    const add = SAMPLE_REQUESTS['paymentRequests/add'].PaymentRequests[0]!;
    expect(
      failurePath(OPERATIONS['paymentRequests/add'].request, {
        PaymentRequests: [{ ...add, Description: '' }],
      }),
    ).toBe('PaymentRequests[0].Description');
  });

  it('takes internationalized addresses in customers/update: the contract asks for an email, not ASCII', () => {
    const update = OPERATIONS['customers/update'].request;
    for (const Email of [
      'josé@example.cz',
      'jürgen@bücher.de',
      '用户@例子.广告',
      'ann@example.com',
    ])
      expect(update.safeParse(request('customers/update', { Email })).success).toBe(true);
    for (const Email of ['jos é@example.cz', 'josé@', '@example.cz', 'a@b@c.cz'])
      expect(failurePath(update, request('customers/update', { Email }))).toBe('Email');
  });

  it('validates customers/update values: email, unique classifications without None, 255 chars', () => {
    const update = OPERATIONS['customers/update'].request;
    expect(failurePath(update, request('customers/update', { Email: 'not an email' }))).toBe(
      'Email',
    );
    expect(failurePath(update, request('customers/update', { Classifications: ['None'] }))).toBe(
      'Classifications[0]',
    );
    expect(
      failurePath(update, request('customers/update', { Options: ['Invoiceable', 'Invoiceable'] })),
    ).toBe('Options');
    expect(
      failurePath(update, request('customers/update', { CarRegistrationNumber: 'X'.repeat(256) })),
    ).toBe('CarRegistrationNumber');
    expect(failurePath(update, request('customers/update', { Phone: 'call me' }))).toBe('Phone');
  });

  it('takes customers/update country codes only as ISO 3166-1 alpha-2, blank still allowed', () => {
    const update = OPERATIONS['customers/update'].request;
    const message = (value: unknown) => {
      const result = update.safeParse(value);
      if (result.success) throw new Error('expected the value to be rejected');
      return toValidationError('value', result.error).message;
    };
    // The contract says "ISO 3166-1"; the seeded customers carry the alpha-2 form (CZ, DE).
    for (const code of ['CZ', 'DE', 'GB', 'JP', '', '  ', null])
      expect(update.safeParse(request('customers/update', { NationalityCode: code })).success).toBe(
        true,
      );
    for (const code of ['XXX', 'CZE', 'cz', 'XX', 'ZZ', 'EU', 'Czechia', '1'])
      expect(
        failurePath(update, request('customers/update', { NationalityCode: code })),
        code,
      ).toBe('NationalityCode');
    expect(message(request('customers/update', { NationalityCode: 'XXX' }))).toContain(
      'ISO 3166-1 alpha-2',
    );
    expect(
      failurePath(update, request('customers/update', { Address: { CountryCode: 'XXX' } })),
    ).toBe('Address.CountryCode');
    expect(
      failurePath(
        update,
        request('customers/update', { Passport: { Number: 'P1', IssuingCountryCode: 'XXX' } }),
      ),
    ).toBe('Passport.IssuingCountryCode');
  });

  it('parses customer records with any country code text a real server may send', () => {
    const response = OPERATIONS['customers/update'].response;
    const customer = SAMPLE_RESPONSES['customers/update'];
    expect(response.safeParse({ ...customer, NationalityCode: 'CZE' }).success).toBe(true);
  });

  it('keeps pricing intervals ordered and within 24 months', () => {
    const pricing = OPERATIONS['products/getPricing'].request;
    const base = SAMPLE_REQUESTS['products/getPricing'];
    expect(
      failurePath(pricing, {
        ...base,
        FirstTimeUnitStartUtc: base.LastTimeUnitStartUtc,
        LastTimeUnitStartUtc: base.FirstTimeUnitStartUtc,
      }),
    ).toBe('LastTimeUnitStartUtc');
    expect(failurePath(pricing, { ...base, LastTimeUnitStartUtc: '2026-07-01T00:00:00Z' })).toBe(
      'LastTimeUnitStartUtc',
    );
  });

  it('takes the envelope only for taxEnvironments/getAll', () => {
    expect(OPERATIONS['taxEnvironments/getAll'].request.safeParse({}).success).toBe(true);
    expect(fullRequestSchema('taxEnvironments/getAll').safeParse(ENVELOPE).success).toBe(true);
  });
});
