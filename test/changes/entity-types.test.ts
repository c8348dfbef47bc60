import { describe, expect, it } from 'vitest';
import { ENTITY_TYPES, entityIdOf, scopeOf } from '../../shared/changes/entity-types.ts';
import { ValidationError } from '../../shared/errors.ts';

describe('entity types', () => {
  it('lists the 13 entity types of the design', () => {
    expect(ENTITY_TYPES).toEqual([
      'customer',
      'resource',
      'accountNote',
      'accountingCategory',
      'billingAutomation',
      'loyaltyMembership',
      'paymentRequest',
      'reservationGroup',
      'productCategory',
      'resourceCategoryImageAssignment',
      'productPrice',
      'export',
      'taxEnvironment',
    ]);
  });
});

describe('entityIdOf', () => {
  it('reads Id for most entity types', () => {
    expect(entityIdOf('customer', { Id: 'c1' })).toBe('c1');
    expect(entityIdOf('export', { Id: 'x1', Status: 'Pending' })).toBe('x1');
  });

  it('reads Code for a tax environment', () => {
    expect(entityIdOf('taxEnvironment', { Code: 'CZ-2026', CountryCode: 'CZE' })).toBe('CZ-2026');
  });

  it('joins ProductId and TimeUnitStartUtc for a product price', () => {
    const price = { ProductId: 'p1', TimeUnitStartUtc: '2026-01-01T23:00:00Z' };
    expect(entityIdOf('productPrice', price)).toBe('p1:2026-01-01T23:00:00Z');
  });

  it('throws a ValidationError naming the missing id field', () => {
    expect(() => entityIdOf('customer', { Email: 'x' })).toThrow(ValidationError);
    const error = (() => {
      try {
        return entityIdOf('productPrice', { ProductId: 'p1' });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ValidationError);
    expect(error instanceof ValidationError && error.path).toBe('TimeUnitStartUtc');
  });
});

describe('scopeOf', () => {
  it('takes enterpriseId from EnterpriseId and keeps the stream chain', () => {
    expect(scopeOf('resource', { Id: 'r1', EnterpriseId: 'e1' }, { chainId: 'ch1' })).toEqual({
      enterpriseId: 'e1',
      chainId: 'ch1',
    });
  });

  it('takes chainId from ChainId', () => {
    expect(scopeOf('customer', { Id: 'c1', ChainId: 'ch2' }, { chainId: 'ch1' })).toEqual({
      chainId: 'ch2',
    });
  });

  it('falls back to the stream scope for records without scope fields', () => {
    expect(scopeOf('accountNote', { Id: 'n1' }, { enterpriseId: 'e9' })).toEqual({
      enterpriseId: 'e9',
    });
    expect(scopeOf('export', { Id: 'x1' })).toEqual({});
  });
});
