import { describe, expect, it } from 'vitest';
import { parseRequestFor } from '../../shared/connector/ignored-scope.ts';
import { OPERATIONS } from '../../shared/connector/operations.ts';
import { applyPortfolioScope } from '../../shared/connector/portfolio-scope.ts';
import { FIXTURE_IDS } from './fixtures.ts';

const CHAIN = '11111111-1111-4111-8111-111111111111';
const ENTERPRISE = '22222222-2222-4222-8222-222222222222';
const SCOPE = { chainIds: [CHAIN], enterpriseIds: [ENTERPRISE] };

// connector-api.md, Authentication 3: ChainId (customers/update, loyaltyPrograms/update) and
// EnterpriseId (paymentRequests/add, vouchers/add) are required with a Portfolio Access Token
// and ignored otherwise. customers/update's ChainId is nullable; the others are as optional:
// a null is no value, so the configured scope fills it in, and an ordinary token's is ignored.
const CASES = [
  ['customers/update', 'ChainId', CHAIN, { CustomerId: FIXTURE_IDS.customer }],
  [
    'loyaltyPrograms/update',
    'ChainId',
    CHAIN,
    { LoyaltyProgramUpdates: [{ LoyaltyProgramId: FIXTURE_IDS.customer }] },
  ],
  ['paymentRequests/add', 'EnterpriseId', ENTERPRISE, { PaymentRequests: [] }],
  ['vouchers/add', 'EnterpriseId', ENTERPRISE, { VoucherParameters: [] }],
] as const;

describe('a null Portfolio Access Token scope field', () => {
  for (const [operation, field, filled, body] of CASES) {
    const spec = OPERATIONS[operation];
    it(`${operation}: the configured scope fills a null ${field}`, () => {
      const scoped = applyPortfolioScope(spec, { ...body, [field]: null }, SCOPE);
      expect(scoped[field]).toBe(filled);
      expect(() => parseRequestFor(spec, scoped, 'portfolio-or-unknown', 'request')).not.toThrow();
    });
    it(`${operation}: an ordinary token's null ${field} passes, as one left out does`, () => {
      expect(() =>
        parseRequestFor(spec, { ...body, [field]: null }, 'ordinary', 'request'),
      ).not.toThrow();
    });
  }
});
