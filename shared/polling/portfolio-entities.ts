import type { EntityType } from '../changes/entity-types.ts';
import { PORTFOLIO_OPERATIONS } from '../connector/portfolio-operations.ts';
import { POLL_SPECS } from './specs/index.ts';

/**
 * The entity types among `entities` whose read refuses a Portfolio Access Token
 * (resourceCategoryImageAssignment, taxEnvironment): a portfolio connection cannot poll them.
 * Pure.
 * @example entitiesWithoutPortfolioRead(['customer', 'taxEnvironment']) // ['taxEnvironment']
 */
export function entitiesWithoutPortfolioRead(entities: readonly EntityType[]): EntityType[] {
  return entities.filter((type) => !PORTFOLIO_OPERATIONS.has(POLL_SPECS[type].operation));
}

/** `entities` without those a Portfolio Access Token cannot read. Pure. */
export function entitiesWithPortfolioRead(entities: readonly EntityType[]): EntityType[] {
  const refused = new Set(entitiesWithoutPortfolioRead(entities));
  return entities.filter((type) => !refused.has(type));
}
