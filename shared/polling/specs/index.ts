import type { EntityType } from '../../changes/entity-types.ts';
import type { PollSpec } from '../poll-spec.ts';
import { accountNoteSpec } from './account-note.ts';
import { accountingCategorySpec } from './accounting-category.ts';
import { billingAutomationSpec } from './billing-automation.ts';
import { customerSpec } from './customer.ts';
import { exportSpec } from './export.ts';
import { loyaltyMembershipSpec } from './loyalty-membership.ts';
import { paymentRequestSpec } from './payment-request.ts';
import { productCategorySpec } from './product-category.ts';
import { productPriceSpec } from './product-price.ts';
import { reservationGroupSpec } from './reservation-group.ts';
import { resourceSpec } from './resource.ts';
import { resourceCategoryImageAssignmentSpec } from './resource-category-image-assignment.ts';
import { taxEnvironmentSpec } from './tax-environment.ts';

/** The poll spec of every entity type. */
export const POLL_SPECS: Readonly<Record<EntityType, PollSpec>> = {
  customer: customerSpec,
  resource: resourceSpec,
  accountNote: accountNoteSpec,
  accountingCategory: accountingCategorySpec,
  billingAutomation: billingAutomationSpec,
  loyaltyMembership: loyaltyMembershipSpec,
  paymentRequest: paymentRequestSpec,
  reservationGroup: reservationGroupSpec,
  productCategory: productCategorySpec,
  resourceCategoryImageAssignment: resourceCategoryImageAssignmentSpec,
  productPrice: productPriceSpec,
  export: exportSpec,
  taxEnvironment: taxEnvironmentSpec,
};
