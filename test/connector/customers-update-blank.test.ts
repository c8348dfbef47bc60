import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../shared/connector/operations.ts';
import { toValidationError } from '../../shared/errors.ts';
import { FIXTURE_IDS } from './fixtures.ts';

// connector-api.md #2, rule 1: "A field that is left out or blank does not clear the stored
// value". A blank value is part of a valid request, also for the fields that carry a format.
const update = OPERATIONS['customers/update'].request;
const body = (fields: Record<string, unknown>) => ({ CustomerId: FIXTURE_IDS.customer, ...fields });

/** [what, the request fields with the blank put in place by `blank`, the field, a malformed value]. */
const FIELDS: [string, (value: string) => Record<string, unknown>, string, string][] = [
  ['Title', (value) => ({ Title: value }), 'Title', 'Sir'],
  ['Sex', (value) => ({ Sex: value }), 'Sex', 'Other'],
  ['BirthDate', (value) => ({ BirthDate: value }), 'BirthDate', '31.12.1990'],
  ['Email', (value) => ({ Email: value }), 'Email', 'not an email'],
  ['Phone', (value) => ({ Phone: value }), 'Phone', 'call me'],
  ['CompanyId', (value) => ({ CompanyId: value }), 'CompanyId', 'company-1'],
  [
    'Passport.Expiration',
    (value) => ({ Passport: { Number: 'P1', Expiration: value } }),
    'Passport.Expiration',
    '2030-13-01',
  ],
  [
    'IdentityCard.Issuance',
    (value) => ({ IdentityCard: { Issuance: value } }),
    'IdentityCard.Issuance',
    'yesterday',
  ],
];

describe('customers/update blank fields (rule 1)', () => {
  for (const [what, fields, path, malformed] of FIELDS) {
    it(`accepts a blank ${what} and still refuses a malformed one naming ${path}`, () => {
      for (const blank of ['', '   ']) {
        const parsed = update.safeParse(body(fields(blank)));
        expect(parsed.success, JSON.stringify(blank)).toBe(true);
      }
      const refused = update.safeParse(body(fields(malformed)));
      expect(refused.success).toBe(false);
      if (refused.success) return;
      const error = toValidationError('customers/update request', refused.error);
      expect(error.path).toBe(path);
      expect(error.message).not.toContain('must be blank');
    });
  }
});
