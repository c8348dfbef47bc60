import type { z } from 'zod';
import * as op from './operations/index.ts';
import { EnvelopeSchema } from './records/common.ts';

/** What the client needs to know about one Connector API operation. */
export interface OperationSpec {
  /** `entity/operation`, e.g. `customers/getAll`. */
  readonly name: string;
  /** The POST path, e.g. `/api/connector/v1/customers/getAll`. */
  readonly path: string;
  /** The request body without the envelope; strict (unknown fields are rejected). */
  readonly request: z.ZodType;
  /** The response body; loose (unknown fields pass through). */
  readonly response: z.ZodType;
  /**
   * For paginated operations (marked P), the response field holding the page's records, and
   * the `Extent` flag without which the response leaves those records out (`itemsExtent`),
   * where the operation has one.
   */
  readonly pagination: { readonly itemsKey: string; readonly itemsExtent?: string } | null;
  /** The field that carries a Portfolio Access Token's scope, for operations that need one. */
  readonly portfolioScope: 'ChainIds' | 'ChainId' | 'EnterpriseId' | null;
}

/** The 20 operations of connector-api.md, keyed by name. */
export const OPERATIONS = {
  'customers/getAll': {
    name: 'customers/getAll',
    path: '/api/connector/v1/customers/getAll',
    request: op.CustomersGetAllRequestSchema,
    response: op.CustomersGetAllResponseSchema,
    pagination: { itemsKey: 'Customers', itemsExtent: 'Customers' },
    portfolioScope: 'ChainIds',
  },
  'customers/update': {
    name: 'customers/update',
    path: '/api/connector/v1/customers/update',
    request: op.CustomersUpdateRequestSchema,
    response: op.CustomersUpdateResponseSchema,
    pagination: null,
    portfolioScope: 'ChainId',
  },
  'resources/getAll': {
    name: 'resources/getAll',
    path: '/api/connector/v1/resources/getAll',
    request: op.ResourcesGetAllRequestSchema,
    response: op.ResourcesGetAllResponseSchema,
    pagination: { itemsKey: 'Resources', itemsExtent: 'Resources' },
    portfolioScope: null,
  },
  'accountNotes/getAll': {
    name: 'accountNotes/getAll',
    path: '/api/connector/v1/accountNotes/getAll',
    request: op.AccountNotesGetAllRequestSchema,
    response: op.AccountNotesGetAllResponseSchema,
    pagination: { itemsKey: 'AccountNotes' },
    portfolioScope: null,
  },
  'accountingCategories/getAll': {
    name: 'accountingCategories/getAll',
    path: '/api/connector/v1/accountingCategories/getAll',
    request: op.AccountingCategoriesGetAllRequestSchema,
    response: op.AccountingCategoriesGetAllResponseSchema,
    pagination: { itemsKey: 'AccountingCategories' },
    portfolioScope: null,
  },
  'billingAutomations/getAll': {
    name: 'billingAutomations/getAll',
    path: '/api/connector/v1/billingAutomations/getAll',
    request: op.BillingAutomationsGetAllRequestSchema,
    response: op.BillingAutomationsGetAllResponseSchema,
    pagination: { itemsKey: 'BillingAutomations' },
    portfolioScope: null,
  },
  'loyaltyMemberships/getAll': {
    name: 'loyaltyMemberships/getAll',
    path: '/api/connector/v1/loyaltyMemberships/getAll',
    request: op.LoyaltyMembershipsGetAllRequestSchema,
    response: op.LoyaltyMembershipsGetAllResponseSchema,
    pagination: { itemsKey: 'LoyaltyMemberships' },
    portfolioScope: null,
  },
  'loyaltyPrograms/update': {
    name: 'loyaltyPrograms/update',
    path: '/api/connector/v1/loyaltyPrograms/update',
    request: op.LoyaltyProgramsUpdateRequestSchema,
    response: op.LoyaltyProgramsUpdateResponseSchema,
    pagination: null,
    portfolioScope: 'ChainId',
  },
  'paymentRequests/getAll': {
    name: 'paymentRequests/getAll',
    path: '/api/connector/v1/paymentRequests/getAll',
    request: op.PaymentRequestsGetAllRequestSchema,
    response: op.PaymentRequestsGetAllResponseSchema,
    pagination: { itemsKey: 'PaymentRequests' },
    portfolioScope: null,
  },
  'paymentRequests/add': {
    name: 'paymentRequests/add',
    path: '/api/connector/v1/paymentRequests/add',
    request: op.PaymentRequestsAddRequestSchema,
    response: op.PaymentRequestsAddResponseSchema,
    pagination: null,
    portfolioScope: 'EnterpriseId',
  },
  'reservationGroups/getAll': {
    name: 'reservationGroups/getAll',
    path: '/api/connector/v1/reservationGroups/getAll',
    request: op.ReservationGroupsGetAllRequestSchema,
    response: op.ReservationGroupsGetAllResponseSchema,
    pagination: { itemsKey: 'ReservationGroups' },
    portfolioScope: null,
  },
  'productCategories/getAll': {
    name: 'productCategories/getAll',
    path: '/api/connector/v1/productCategories/getAll',
    request: op.ProductCategoriesGetAllRequestSchema,
    response: op.ProductCategoriesGetAllResponseSchema,
    pagination: { itemsKey: 'ProductCategories' },
    portfolioScope: null,
  },
  'resourceCategoryImageAssignments/getAll': {
    name: 'resourceCategoryImageAssignments/getAll',
    path: '/api/connector/v1/resourceCategoryImageAssignments/getAll',
    request: op.ResourceCategoryImageAssignmentsGetAllRequestSchema,
    response: op.ResourceCategoryImageAssignmentsGetAllResponseSchema,
    pagination: { itemsKey: 'ResourceCategoryImageAssignments' },
    portfolioScope: null,
  },
  'products/getPricing': {
    name: 'products/getPricing',
    path: '/api/connector/v1/products/getPricing',
    request: op.ProductsGetPricingRequestSchema,
    response: op.ProductsGetPricingResponseSchema,
    pagination: null,
    portfolioScope: null,
  },
  'routingRules/update': {
    name: 'routingRules/update',
    path: '/api/connector/v1/routingRules/update',
    request: op.RoutingRulesUpdateRequestSchema,
    response: op.RoutingRulesUpdateResponseSchema,
    pagination: null,
    portfolioScope: null,
  },
  'reservations/getAllItems': {
    name: 'reservations/getAllItems',
    path: '/api/connector/v1/reservations/getAllItems',
    request: op.ReservationsGetAllItemsRequestSchema,
    response: op.ReservationsGetAllItemsResponseSchema,
    pagination: null,
    portfolioScope: null,
  },
  'vouchers/add': {
    name: 'vouchers/add',
    path: '/api/connector/v1/vouchers/add',
    request: op.VouchersAddRequestSchema,
    response: op.VouchersAddResponseSchema,
    pagination: null,
    portfolioScope: 'EnterpriseId',
  },
  'restrictions/clear': {
    name: 'restrictions/clear',
    path: '/api/connector/v1/restrictions/clear',
    request: op.RestrictionsClearRequestSchema,
    response: op.RestrictionsClearResponseSchema,
    pagination: null,
    portfolioScope: null,
  },
  'exports/getAll': {
    name: 'exports/getAll',
    path: '/api/connector/v1/exports/getAll',
    request: op.ExportsGetAllRequestSchema,
    response: op.ExportsGetAllResponseSchema,
    pagination: null,
    portfolioScope: null,
  },
  'taxEnvironments/getAll': {
    name: 'taxEnvironments/getAll',
    path: '/api/connector/v1/taxEnvironments/getAll',
    request: op.TaxEnvironmentsGetAllRequestSchema,
    response: op.TaxEnvironmentsGetAllResponseSchema,
    pagination: null,
    portfolioScope: null,
  },
} as const satisfies Record<string, OperationSpec>;

/** The name of one of the 20 operations, e.g. `customers/getAll`. */
export type OperationName = keyof typeof OPERATIONS;

/**
 * Operations that create records (paymentRequests/add, vouchers/add): sent twice, they create
 * twice. Every other operation is repeatable: a read, or an update or clear that applied twice
 * leaves what applying it once left.
 */
const ADDING_OPERATIONS: ReadonlySet<string> = new Set(['paymentRequests/add', 'vouchers/add']);

/**
 * True when sending the operation again after an answer that may hide its effect (no answer,
 * the timeout error, an internal error) cannot apply it twice. Pure.
 * @example isRepeatableOperation('customers/update') === true
 */
export function isRepeatableOperation(name: string): boolean {
  return !ADDING_OPERATIONS.has(name);
}

/** The names of the paginated operations (marked P). */
export type PaginatedOperationName = {
  [N in OperationName]: (typeof OPERATIONS)[N]['pagination'] extends null ? never : N;
}[OperationName];

/** The request body of operation N as a caller writes it (without the envelope). */
export type OperationRequest<N extends OperationName> = z.input<(typeof OPERATIONS)[N]['request']>;

/** The parsed response body of operation N. */
export type OperationResponse<N extends OperationName> = z.output<
  (typeof OPERATIONS)[N]['response']
>;

/** True when `name` is one of the 20 operations. */
export function isOperationName(name: string): name is OperationName {
  return Object.hasOwn(OPERATIONS, name);
}

/** True when `name` is a paginated operation. */
export function isPaginatedOperationName(name: string): name is PaginatedOperationName {
  return isOperationName(name) && OPERATIONS[name].pagination !== null;
}

/** All operation names, in the order of connector-api.md. */
export const OPERATION_NAMES: readonly OperationName[] = Object.freeze(
  Object.keys(OPERATIONS).filter(isOperationName),
);

/** The paginated operation names, in the order of connector-api.md. */
export const PAGINATED_OPERATION_NAMES: readonly PaginatedOperationName[] = Object.freeze(
  OPERATION_NAMES.filter(isPaginatedOperationName),
);

const fullRequestSchemas = new Map<OperationName, z.ZodType>();

/**
 * The full body schema the server sees: the operation's request plus the envelope
 * (ClientToken, AccessToken, Client), strict, with the request's refinements kept.
 * Built once per operation.
 */
export function fullRequestSchema(name: OperationName): z.ZodType {
  const cached = fullRequestSchemas.get(name);
  if (cached) return cached;
  const request: z.ZodObject = OPERATIONS[name].request;
  // safeExtend, unlike extend, keeps the refinements (e.g. "CustomerIds required").
  const schema = request.safeExtend(EnvelopeSchema.shape);
  fullRequestSchemas.set(name, schema);
  return schema;
}
