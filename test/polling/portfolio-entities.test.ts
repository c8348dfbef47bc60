import { describe, expect, it } from 'vitest';
import { ENTITY_TYPES } from '../../shared/changes/entity-types.ts';
import {
  entitiesWithoutPortfolioRead,
  entitiesWithPortfolioRead,
} from '../../shared/polling/portfolio-entities.ts';

describe('entity types a Portfolio Access Token reads', () => {
  it('excludes image assignments (no support stated) and tax environments (not marked)', () => {
    expect(entitiesWithoutPortfolioRead(ENTITY_TYPES).sort()).toEqual([
      'resourceCategoryImageAssignment',
      'taxEnvironment',
    ]);
  });

  it('keeps every other type, in order', () => {
    expect(entitiesWithPortfolioRead(['taxEnvironment', 'customer', 'export', 'resource'])).toEqual(
      ['customer', 'export', 'resource'],
    );
  });
});
