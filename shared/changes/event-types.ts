import type { z } from 'zod';
import type {
  AnyEventSchema,
  ChangeEventSchema,
  EventOf,
  SnapshotEventSchema,
} from './catalogue.ts';

/** A `customer.created` event. */
export type CustomerCreatedEvent = EventOf<'customer.created'>;

/** A `customer.updated` event. */
export type CustomerUpdatedEvent = EventOf<'customer.updated'>;

/** A `customer.deleted` event. */
export type CustomerDeletedEvent = EventOf<'customer.deleted'>;

/** A `customer.snapshot` event. */
export type CustomerSnapshotEvent = EventOf<'customer.snapshot'>;

/** A `resource.created` event. */
export type ResourceCreatedEvent = EventOf<'resource.created'>;

/** A `resource.updated` event. */
export type ResourceUpdatedEvent = EventOf<'resource.updated'>;

/** A `resource.deleted` event. */
export type ResourceDeletedEvent = EventOf<'resource.deleted'>;

/** A `resource.snapshot` event. */
export type ResourceSnapshotEvent = EventOf<'resource.snapshot'>;

/** A `accountNote.created` event. */
export type AccountNoteCreatedEvent = EventOf<'accountNote.created'>;

/** A `accountNote.updated` event. */
export type AccountNoteUpdatedEvent = EventOf<'accountNote.updated'>;

/** A `accountNote.deleted` event. */
export type AccountNoteDeletedEvent = EventOf<'accountNote.deleted'>;

/** A `accountNote.snapshot` event. */
export type AccountNoteSnapshotEvent = EventOf<'accountNote.snapshot'>;

/** A `accountingCategory.created` event. */
export type AccountingCategoryCreatedEvent = EventOf<'accountingCategory.created'>;

/** A `accountingCategory.updated` event. */
export type AccountingCategoryUpdatedEvent = EventOf<'accountingCategory.updated'>;

/** A `accountingCategory.deleted` event. */
export type AccountingCategoryDeletedEvent = EventOf<'accountingCategory.deleted'>;

/** A `accountingCategory.snapshot` event. */
export type AccountingCategorySnapshotEvent = EventOf<'accountingCategory.snapshot'>;

/** A `billingAutomation.created` event. */
export type BillingAutomationCreatedEvent = EventOf<'billingAutomation.created'>;

/** A `billingAutomation.updated` event. */
export type BillingAutomationUpdatedEvent = EventOf<'billingAutomation.updated'>;

/** A `billingAutomation.deleted` event. */
export type BillingAutomationDeletedEvent = EventOf<'billingAutomation.deleted'>;

/** A `billingAutomation.snapshot` event. */
export type BillingAutomationSnapshotEvent = EventOf<'billingAutomation.snapshot'>;

/** A `loyaltyMembership.created` event. */
export type LoyaltyMembershipCreatedEvent = EventOf<'loyaltyMembership.created'>;

/** A `loyaltyMembership.updated` event. */
export type LoyaltyMembershipUpdatedEvent = EventOf<'loyaltyMembership.updated'>;

/** A `loyaltyMembership.deleted` event. */
export type LoyaltyMembershipDeletedEvent = EventOf<'loyaltyMembership.deleted'>;

/** A `loyaltyMembership.snapshot` event. */
export type LoyaltyMembershipSnapshotEvent = EventOf<'loyaltyMembership.snapshot'>;

/** A `paymentRequest.created` event. */
export type PaymentRequestCreatedEvent = EventOf<'paymentRequest.created'>;

/** A `paymentRequest.updated` event. */
export type PaymentRequestUpdatedEvent = EventOf<'paymentRequest.updated'>;

/** A `paymentRequest.deleted` event. */
export type PaymentRequestDeletedEvent = EventOf<'paymentRequest.deleted'>;

/** A `paymentRequest.snapshot` event. */
export type PaymentRequestSnapshotEvent = EventOf<'paymentRequest.snapshot'>;

/** A `reservationGroup.created` event. */
export type ReservationGroupCreatedEvent = EventOf<'reservationGroup.created'>;

/** A `reservationGroup.updated` event. */
export type ReservationGroupUpdatedEvent = EventOf<'reservationGroup.updated'>;

/** A `reservationGroup.deleted` event. */
export type ReservationGroupDeletedEvent = EventOf<'reservationGroup.deleted'>;

/** A `reservationGroup.snapshot` event. */
export type ReservationGroupSnapshotEvent = EventOf<'reservationGroup.snapshot'>;

/** A `productCategory.created` event. */
export type ProductCategoryCreatedEvent = EventOf<'productCategory.created'>;

/** A `productCategory.updated` event. */
export type ProductCategoryUpdatedEvent = EventOf<'productCategory.updated'>;

/** A `productCategory.deleted` event. */
export type ProductCategoryDeletedEvent = EventOf<'productCategory.deleted'>;

/** A `productCategory.snapshot` event. */
export type ProductCategorySnapshotEvent = EventOf<'productCategory.snapshot'>;

/** A `resourceCategoryImageAssignment.created` event. */
export type ResourceCategoryImageAssignmentCreatedEvent =
  EventOf<'resourceCategoryImageAssignment.created'>;

/** A `resourceCategoryImageAssignment.updated` event. */
export type ResourceCategoryImageAssignmentUpdatedEvent =
  EventOf<'resourceCategoryImageAssignment.updated'>;

/** A `resourceCategoryImageAssignment.deleted` event. */
export type ResourceCategoryImageAssignmentDeletedEvent =
  EventOf<'resourceCategoryImageAssignment.deleted'>;

/** A `resourceCategoryImageAssignment.snapshot` event. */
export type ResourceCategoryImageAssignmentSnapshotEvent =
  EventOf<'resourceCategoryImageAssignment.snapshot'>;

/** A `productPrice.created` event. */
export type ProductPriceCreatedEvent = EventOf<'productPrice.created'>;

/** A `productPrice.updated` event. */
export type ProductPriceUpdatedEvent = EventOf<'productPrice.updated'>;

/** A `productPrice.deleted` event. */
export type ProductPriceDeletedEvent = EventOf<'productPrice.deleted'>;

/** A `productPrice.snapshot` event. */
export type ProductPriceSnapshotEvent = EventOf<'productPrice.snapshot'>;

/** A `export.created` event. */
export type ExportCreatedEvent = EventOf<'export.created'>;

/** A `export.updated` event. */
export type ExportUpdatedEvent = EventOf<'export.updated'>;

/** A `export.deleted` event. */
export type ExportDeletedEvent = EventOf<'export.deleted'>;

/** A `export.snapshot` event. */
export type ExportSnapshotEvent = EventOf<'export.snapshot'>;

/** A `taxEnvironment.created` event. */
export type TaxEnvironmentCreatedEvent = EventOf<'taxEnvironment.created'>;

/** A `taxEnvironment.updated` event. */
export type TaxEnvironmentUpdatedEvent = EventOf<'taxEnvironment.updated'>;

/** A `taxEnvironment.deleted` event. */
export type TaxEnvironmentDeletedEvent = EventOf<'taxEnvironment.deleted'>;

/** A `taxEnvironment.snapshot` event. */
export type TaxEnvironmentSnapshotEvent = EventOf<'taxEnvironment.snapshot'>;

/** A `subscription.disabled` event. */
export type SubscriptionDisabledEvent = EventOf<'subscription.disabled'>;

/** A `delivery.failing` event. */
export type DeliveryFailingEvent = EventOf<'delivery.failing'>;

/** A `delivery.recovered` event. */
export type DeliveryRecoveredEvent = EventOf<'delivery.recovered'>;

/** A `ping` event. */
export type PingEvent = EventOf<'ping'>;

/** Any change event: created, updated or deleted, of any entity type. */
export type ChangeEvent = z.output<typeof ChangeEventSchema>;

/** Any snapshot event (resync). */
export type SnapshotEvent = z.output<typeof SnapshotEventSchema>;

/** Any operational event. */
export type OperationalEvent =
  | SubscriptionDisabledEvent
  | DeliveryFailingEvent
  | DeliveryRecoveredEvent
  | PingEvent;

/** Any event change-bridge sends. */
export type AnyEvent = z.output<typeof AnyEventSchema>;
