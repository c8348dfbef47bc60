import {
  AnyEventSchema,
  ChangeEventSchema,
  EVENT_SCHEMAS,
  type EventOf,
  type EventType,
} from './catalogue.ts';
import type { AnyEvent, ChangeEvent } from './event-types.ts';

function hasType(value: unknown, type: string): boolean {
  return typeof value === 'object' && value !== null && 'type' in value && value.type === type;
}

/**
 * True when `value` is an event of `type` that parses with that type's schema. The `type`
 * check comes first, so a guard rejects other events without parsing them.
 * @example if (isEventOfType('customer.updated', body)) console.log(body.data.changedFields);
 */
export function isEventOfType<T extends EventType>(type: T, value: unknown): value is EventOf<T> {
  return hasType(value, type) && EVENT_SCHEMAS[type].safeParse(value).success;
}

function guard<T extends EventType>(type: T): (value: unknown) => value is EventOf<T> {
  return (value: unknown): value is EventOf<T> => isEventOfType(type, value);
}

/** True when `value` is any valid change event (created, updated or deleted). */
export function isChangeEvent(value: unknown): value is ChangeEvent {
  return ChangeEventSchema.safeParse(value).success;
}

/** True when `value` is any valid event of the catalogue. */
export function isAnyEvent(value: unknown): value is AnyEvent {
  return AnyEventSchema.safeParse(value).success;
}

/** True when `value` is a valid `customer.created` event. */
export const isCustomerCreatedEvent = guard('customer.created');

/** True when `value` is a valid `customer.updated` event. */
export const isCustomerUpdatedEvent = guard('customer.updated');

/** True when `value` is a valid `customer.deleted` event. */
export const isCustomerDeletedEvent = guard('customer.deleted');

/** True when `value` is a valid `customer.snapshot` event. */
export const isCustomerSnapshotEvent = guard('customer.snapshot');

/** True when `value` is a valid `resource.created` event. */
export const isResourceCreatedEvent = guard('resource.created');

/** True when `value` is a valid `resource.updated` event. */
export const isResourceUpdatedEvent = guard('resource.updated');

/** True when `value` is a valid `resource.deleted` event. */
export const isResourceDeletedEvent = guard('resource.deleted');

/** True when `value` is a valid `resource.snapshot` event. */
export const isResourceSnapshotEvent = guard('resource.snapshot');

/** True when `value` is a valid `accountNote.created` event. */
export const isAccountNoteCreatedEvent = guard('accountNote.created');

/** True when `value` is a valid `accountNote.updated` event. */
export const isAccountNoteUpdatedEvent = guard('accountNote.updated');

/** True when `value` is a valid `accountNote.deleted` event. */
export const isAccountNoteDeletedEvent = guard('accountNote.deleted');

/** True when `value` is a valid `accountNote.snapshot` event. */
export const isAccountNoteSnapshotEvent = guard('accountNote.snapshot');

/** True when `value` is a valid `accountingCategory.created` event. */
export const isAccountingCategoryCreatedEvent = guard('accountingCategory.created');

/** True when `value` is a valid `accountingCategory.updated` event. */
export const isAccountingCategoryUpdatedEvent = guard('accountingCategory.updated');

/** True when `value` is a valid `accountingCategory.deleted` event. */
export const isAccountingCategoryDeletedEvent = guard('accountingCategory.deleted');

/** True when `value` is a valid `accountingCategory.snapshot` event. */
export const isAccountingCategorySnapshotEvent = guard('accountingCategory.snapshot');

/** True when `value` is a valid `billingAutomation.created` event. */
export const isBillingAutomationCreatedEvent = guard('billingAutomation.created');

/** True when `value` is a valid `billingAutomation.updated` event. */
export const isBillingAutomationUpdatedEvent = guard('billingAutomation.updated');

/** True when `value` is a valid `billingAutomation.deleted` event. */
export const isBillingAutomationDeletedEvent = guard('billingAutomation.deleted');

/** True when `value` is a valid `billingAutomation.snapshot` event. */
export const isBillingAutomationSnapshotEvent = guard('billingAutomation.snapshot');

/** True when `value` is a valid `loyaltyMembership.created` event. */
export const isLoyaltyMembershipCreatedEvent = guard('loyaltyMembership.created');

/** True when `value` is a valid `loyaltyMembership.updated` event. */
export const isLoyaltyMembershipUpdatedEvent = guard('loyaltyMembership.updated');

/** True when `value` is a valid `loyaltyMembership.deleted` event. */
export const isLoyaltyMembershipDeletedEvent = guard('loyaltyMembership.deleted');

/** True when `value` is a valid `loyaltyMembership.snapshot` event. */
export const isLoyaltyMembershipSnapshotEvent = guard('loyaltyMembership.snapshot');

/** True when `value` is a valid `paymentRequest.created` event. */
export const isPaymentRequestCreatedEvent = guard('paymentRequest.created');

/** True when `value` is a valid `paymentRequest.updated` event. */
export const isPaymentRequestUpdatedEvent = guard('paymentRequest.updated');

/** True when `value` is a valid `paymentRequest.deleted` event. */
export const isPaymentRequestDeletedEvent = guard('paymentRequest.deleted');

/** True when `value` is a valid `paymentRequest.snapshot` event. */
export const isPaymentRequestSnapshotEvent = guard('paymentRequest.snapshot');

/** True when `value` is a valid `reservationGroup.created` event. */
export const isReservationGroupCreatedEvent = guard('reservationGroup.created');

/** True when `value` is a valid `reservationGroup.updated` event. */
export const isReservationGroupUpdatedEvent = guard('reservationGroup.updated');

/** True when `value` is a valid `reservationGroup.deleted` event. */
export const isReservationGroupDeletedEvent = guard('reservationGroup.deleted');

/** True when `value` is a valid `reservationGroup.snapshot` event. */
export const isReservationGroupSnapshotEvent = guard('reservationGroup.snapshot');

/** True when `value` is a valid `productCategory.created` event. */
export const isProductCategoryCreatedEvent = guard('productCategory.created');

/** True when `value` is a valid `productCategory.updated` event. */
export const isProductCategoryUpdatedEvent = guard('productCategory.updated');

/** True when `value` is a valid `productCategory.deleted` event. */
export const isProductCategoryDeletedEvent = guard('productCategory.deleted');

/** True when `value` is a valid `productCategory.snapshot` event. */
export const isProductCategorySnapshotEvent = guard('productCategory.snapshot');

/** True when `value` is a valid `resourceCategoryImageAssignment.created` event. */
export const isResourceCategoryImageAssignmentCreatedEvent = guard(
  'resourceCategoryImageAssignment.created',
);

/** True when `value` is a valid `resourceCategoryImageAssignment.updated` event. */
export const isResourceCategoryImageAssignmentUpdatedEvent = guard(
  'resourceCategoryImageAssignment.updated',
);

/** True when `value` is a valid `resourceCategoryImageAssignment.deleted` event. */
export const isResourceCategoryImageAssignmentDeletedEvent = guard(
  'resourceCategoryImageAssignment.deleted',
);

/** True when `value` is a valid `resourceCategoryImageAssignment.snapshot` event. */
export const isResourceCategoryImageAssignmentSnapshotEvent = guard(
  'resourceCategoryImageAssignment.snapshot',
);

/** True when `value` is a valid `productPrice.created` event. */
export const isProductPriceCreatedEvent = guard('productPrice.created');

/** True when `value` is a valid `productPrice.updated` event. */
export const isProductPriceUpdatedEvent = guard('productPrice.updated');

/** True when `value` is a valid `productPrice.deleted` event. */
export const isProductPriceDeletedEvent = guard('productPrice.deleted');

/** True when `value` is a valid `productPrice.snapshot` event. */
export const isProductPriceSnapshotEvent = guard('productPrice.snapshot');

/** True when `value` is a valid `export.created` event. */
export const isExportCreatedEvent = guard('export.created');

/** True when `value` is a valid `export.updated` event. */
export const isExportUpdatedEvent = guard('export.updated');

/** True when `value` is a valid `export.deleted` event. */
export const isExportDeletedEvent = guard('export.deleted');

/** True when `value` is a valid `export.snapshot` event. */
export const isExportSnapshotEvent = guard('export.snapshot');

/** True when `value` is a valid `taxEnvironment.created` event. */
export const isTaxEnvironmentCreatedEvent = guard('taxEnvironment.created');

/** True when `value` is a valid `taxEnvironment.updated` event. */
export const isTaxEnvironmentUpdatedEvent = guard('taxEnvironment.updated');

/** True when `value` is a valid `taxEnvironment.deleted` event. */
export const isTaxEnvironmentDeletedEvent = guard('taxEnvironment.deleted');

/** True when `value` is a valid `taxEnvironment.snapshot` event. */
export const isTaxEnvironmentSnapshotEvent = guard('taxEnvironment.snapshot');

/** True when `value` is a valid `subscription.disabled` event. */
export const isSubscriptionDisabledEvent = guard('subscription.disabled');

/** True when `value` is a valid `delivery.failing` event. */
export const isDeliveryFailingEvent = guard('delivery.failing');

/** True when `value` is a valid `delivery.recovered` event. */
export const isDeliveryRecoveredEvent = guard('delivery.recovered');

/** True when `value` is a valid `ping` event. */
export const isPingEvent = guard('ping');
