import type { OperationName } from './operations.ts';

/**
 * Operations that accept a Portfolio Access Token (connector-api.md, Authentication 3): the
 * paginated ones except resourceCategoryImageAssignments/getAll (no support stated), and those
 * marked "Supports Portfolio Access Tokens" or carrying a scope field. Every other operation
 * refuses such a token (401).
 */
export const PORTFOLIO_OPERATIONS: ReadonlySet<OperationName> = new Set<OperationName>([
  'customers/getAll',
  'customers/update',
  'resources/getAll',
  'accountNotes/getAll',
  'accountingCategories/getAll',
  'billingAutomations/getAll',
  'loyaltyMemberships/getAll',
  'loyaltyPrograms/update',
  'paymentRequests/getAll',
  'paymentRequests/add',
  'reservationGroups/getAll',
  'productCategories/getAll',
  'products/getPricing',
  'vouchers/add',
  'exports/getAll',
]);
