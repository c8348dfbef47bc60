import type { OperationName } from '../connector/operations.ts';
import type { SimHandler } from './context.ts';
import { customersUpdate } from './customer-update.ts';
import {
  accountNotesGetAll,
  customersGetAll,
  loyaltyMembershipsGetAll,
  loyaltyProgramsUpdate,
  paymentRequestsAdd,
  paymentRequestsGetAll,
  reservationGroupsGetAll,
} from './handlers-guests.ts';
import {
  accountingCategoriesGetAll,
  billingAutomationsGetAll,
  productCategoriesGetAll,
  resourceCategoryImageAssignmentsGetAll,
  resourcesGetAll,
} from './handlers-property.ts';
import {
  exportsGetAll,
  productsGetPricing,
  reservationsGetAllItems,
  taxEnvironmentsGetAll,
} from './handlers-reads.ts';
import { restrictionsClear, routingRulesUpdate, vouchersAdd } from './handlers-writes.ts';

/** The handler of each of the 20 operations. */
export const HANDLERS: Readonly<Record<OperationName, SimHandler>> = {
  'customers/getAll': customersGetAll,
  'customers/update': customersUpdate,
  'resources/getAll': resourcesGetAll,
  'accountNotes/getAll': accountNotesGetAll,
  'accountingCategories/getAll': accountingCategoriesGetAll,
  'billingAutomations/getAll': billingAutomationsGetAll,
  'loyaltyMemberships/getAll': loyaltyMembershipsGetAll,
  'loyaltyPrograms/update': loyaltyProgramsUpdate,
  'paymentRequests/getAll': paymentRequestsGetAll,
  'paymentRequests/add': paymentRequestsAdd,
  'reservationGroups/getAll': reservationGroupsGetAll,
  'productCategories/getAll': productCategoriesGetAll,
  'resourceCategoryImageAssignments/getAll': resourceCategoryImageAssignmentsGetAll,
  'products/getPricing': productsGetPricing,
  'routingRules/update': routingRulesUpdate,
  'reservations/getAllItems': reservationsGetAllItems,
  'vouchers/add': vouchersAdd,
  'restrictions/clear': restrictionsClear,
  'exports/getAll': exportsGetAll,
  'taxEnvironments/getAll': taxEnvironmentsGetAll,
};
