import { z } from 'zod';
import {
  AccountingCategorySchema,
  AccountNoteSchema,
  BillingAutomationSchema,
  CustomerSchema,
  ExportSchema,
  LoyaltyMembershipSchema,
  PaymentRequestSchema,
  ProductCategorySchema,
  ProductPriceSchema,
  ReservationGroupSchema,
  ResourceCategoryImageAssignmentSchema,
  ResourceSchema,
  TaxEnvironmentSchema,
} from '../connector/records/index.ts';
import { entityEventSchemas } from './entity-event-schema.ts';
import {
  type ChangeKind,
  ChangeKindSchema,
  ENTITY_TYPES,
  type EntityEventKind,
  EntityEventKindSchema,
  type EntityType,
} from './entity-types.ts';
import { OPERATIONAL_EVENT_SCHEMAS, type OperationalEventType } from './operational-events.ts';
import { WRITE_EVENT_SCHEMAS, WRITE_EVENT_TYPES } from './write-event-schemas.ts';

/** The record schema of each entity type: what `data.current` and `data.previous` hold. */
export const RECORD_SCHEMAS = {
  customer: CustomerSchema,
  resource: ResourceSchema,
  accountNote: AccountNoteSchema,
  accountingCategory: AccountingCategorySchema,
  billingAutomation: BillingAutomationSchema,
  loyaltyMembership: LoyaltyMembershipSchema,
  paymentRequest: PaymentRequestSchema,
  reservationGroup: ReservationGroupSchema,
  productCategory: ProductCategorySchema,
  resourceCategoryImageAssignment: ResourceCategoryImageAssignmentSchema,
  productPrice: ProductPriceSchema,
  export: ExportSchema,
  taxEnvironment: TaxEnvironmentSchema,
} satisfies Record<EntityType, z.ZodType>;

/** The four event schemas (created, updated, deleted, snapshot) of each entity type. */
export const ENTITY_EVENT_SCHEMAS = {
  customer: entityEventSchemas('customer', CustomerSchema),
  resource: entityEventSchemas('resource', ResourceSchema),
  accountNote: entityEventSchemas('accountNote', AccountNoteSchema),
  accountingCategory: entityEventSchemas('accountingCategory', AccountingCategorySchema),
  billingAutomation: entityEventSchemas('billingAutomation', BillingAutomationSchema),
  loyaltyMembership: entityEventSchemas('loyaltyMembership', LoyaltyMembershipSchema),
  paymentRequest: entityEventSchemas('paymentRequest', PaymentRequestSchema),
  reservationGroup: entityEventSchemas('reservationGroup', ReservationGroupSchema),
  productCategory: entityEventSchemas('productCategory', ProductCategorySchema),
  resourceCategoryImageAssignment: entityEventSchemas(
    'resourceCategoryImageAssignment',
    ResourceCategoryImageAssignmentSchema,
  ),
  productPrice: entityEventSchemas('productPrice', ProductPriceSchema),
  export: entityEventSchemas('export', ExportSchema),
  taxEnvironment: entityEventSchemas('taxEnvironment', TaxEnvironmentSchema),
} satisfies Record<EntityType, Record<EntityEventKind, z.ZodType>>;

/**
 * Every event schema by event `type`: `<entity>.<created|updated|deleted|snapshot>` for the
 * 13 entity types, then the events only writes through the bridge produce, then the
 * operational events. The JSON Schemas in schemas/ are generated
 * from these.
 */
export const EVENT_SCHEMAS = {
  'customer.created': ENTITY_EVENT_SCHEMAS.customer.created,
  'customer.updated': ENTITY_EVENT_SCHEMAS.customer.updated,
  'customer.deleted': ENTITY_EVENT_SCHEMAS.customer.deleted,
  'customer.snapshot': ENTITY_EVENT_SCHEMAS.customer.snapshot,
  'resource.created': ENTITY_EVENT_SCHEMAS.resource.created,
  'resource.updated': ENTITY_EVENT_SCHEMAS.resource.updated,
  'resource.deleted': ENTITY_EVENT_SCHEMAS.resource.deleted,
  'resource.snapshot': ENTITY_EVENT_SCHEMAS.resource.snapshot,
  'accountNote.created': ENTITY_EVENT_SCHEMAS.accountNote.created,
  'accountNote.updated': ENTITY_EVENT_SCHEMAS.accountNote.updated,
  'accountNote.deleted': ENTITY_EVENT_SCHEMAS.accountNote.deleted,
  'accountNote.snapshot': ENTITY_EVENT_SCHEMAS.accountNote.snapshot,
  'accountingCategory.created': ENTITY_EVENT_SCHEMAS.accountingCategory.created,
  'accountingCategory.updated': ENTITY_EVENT_SCHEMAS.accountingCategory.updated,
  'accountingCategory.deleted': ENTITY_EVENT_SCHEMAS.accountingCategory.deleted,
  'accountingCategory.snapshot': ENTITY_EVENT_SCHEMAS.accountingCategory.snapshot,
  'billingAutomation.created': ENTITY_EVENT_SCHEMAS.billingAutomation.created,
  'billingAutomation.updated': ENTITY_EVENT_SCHEMAS.billingAutomation.updated,
  'billingAutomation.deleted': ENTITY_EVENT_SCHEMAS.billingAutomation.deleted,
  'billingAutomation.snapshot': ENTITY_EVENT_SCHEMAS.billingAutomation.snapshot,
  'loyaltyMembership.created': ENTITY_EVENT_SCHEMAS.loyaltyMembership.created,
  'loyaltyMembership.updated': ENTITY_EVENT_SCHEMAS.loyaltyMembership.updated,
  'loyaltyMembership.deleted': ENTITY_EVENT_SCHEMAS.loyaltyMembership.deleted,
  'loyaltyMembership.snapshot': ENTITY_EVENT_SCHEMAS.loyaltyMembership.snapshot,
  'paymentRequest.created': ENTITY_EVENT_SCHEMAS.paymentRequest.created,
  'paymentRequest.updated': ENTITY_EVENT_SCHEMAS.paymentRequest.updated,
  'paymentRequest.deleted': ENTITY_EVENT_SCHEMAS.paymentRequest.deleted,
  'paymentRequest.snapshot': ENTITY_EVENT_SCHEMAS.paymentRequest.snapshot,
  'reservationGroup.created': ENTITY_EVENT_SCHEMAS.reservationGroup.created,
  'reservationGroup.updated': ENTITY_EVENT_SCHEMAS.reservationGroup.updated,
  'reservationGroup.deleted': ENTITY_EVENT_SCHEMAS.reservationGroup.deleted,
  'reservationGroup.snapshot': ENTITY_EVENT_SCHEMAS.reservationGroup.snapshot,
  'productCategory.created': ENTITY_EVENT_SCHEMAS.productCategory.created,
  'productCategory.updated': ENTITY_EVENT_SCHEMAS.productCategory.updated,
  'productCategory.deleted': ENTITY_EVENT_SCHEMAS.productCategory.deleted,
  'productCategory.snapshot': ENTITY_EVENT_SCHEMAS.productCategory.snapshot,
  'resourceCategoryImageAssignment.created':
    ENTITY_EVENT_SCHEMAS.resourceCategoryImageAssignment.created,
  'resourceCategoryImageAssignment.updated':
    ENTITY_EVENT_SCHEMAS.resourceCategoryImageAssignment.updated,
  'resourceCategoryImageAssignment.deleted':
    ENTITY_EVENT_SCHEMAS.resourceCategoryImageAssignment.deleted,
  'resourceCategoryImageAssignment.snapshot':
    ENTITY_EVENT_SCHEMAS.resourceCategoryImageAssignment.snapshot,
  'productPrice.created': ENTITY_EVENT_SCHEMAS.productPrice.created,
  'productPrice.updated': ENTITY_EVENT_SCHEMAS.productPrice.updated,
  'productPrice.deleted': ENTITY_EVENT_SCHEMAS.productPrice.deleted,
  'productPrice.snapshot': ENTITY_EVENT_SCHEMAS.productPrice.snapshot,
  'export.created': ENTITY_EVENT_SCHEMAS.export.created,
  'export.updated': ENTITY_EVENT_SCHEMAS.export.updated,
  'export.deleted': ENTITY_EVENT_SCHEMAS.export.deleted,
  'export.snapshot': ENTITY_EVENT_SCHEMAS.export.snapshot,
  'taxEnvironment.created': ENTITY_EVENT_SCHEMAS.taxEnvironment.created,
  'taxEnvironment.updated': ENTITY_EVENT_SCHEMAS.taxEnvironment.updated,
  'taxEnvironment.deleted': ENTITY_EVENT_SCHEMAS.taxEnvironment.deleted,
  'taxEnvironment.snapshot': ENTITY_EVENT_SCHEMAS.taxEnvironment.snapshot,
  ...WRITE_EVENT_SCHEMAS,
  ...OPERATIONAL_EVENT_SCHEMAS,
};

/** A change event type: `<entity>.<created|updated|deleted>`. */
export type ChangeEventType = `${EntityType}.${ChangeKind}`;

/** A snapshot event type: `<entity>.snapshot`. */
export type SnapshotEventType = `${EntityType}.snapshot`;

/** Any event type of the catalogue. */
export type EventType = keyof typeof EVENT_SCHEMAS;

/** The event of one type, as its schema parses it. */
export type EventOf<T extends EventType> = z.output<(typeof EVENT_SCHEMAS)[T]>;

/** Every change event type, entity by entity. */
export const CHANGE_EVENT_TYPES: readonly ChangeEventType[] = ENTITY_TYPES.flatMap((entity) =>
  ChangeKindSchema.options.map((kind) => `${entity}.${kind}` as const),
);

/** Every snapshot event type. */
export const SNAPSHOT_EVENT_TYPES: readonly SnapshotEventType[] = ENTITY_TYPES.map(
  (entity) => `${entity}.snapshot` as const,
);

/** Every operational event type. */
export const OPERATIONAL_EVENT_TYPES: readonly OperationalEventType[] = [
  'subscription.disabled',
  'delivery.failing',
  'delivery.recovered',
  'ping',
];

/** Every event type of the catalogue, in catalogue order. */
export const EventTypeSchema = z.enum([
  ...ENTITY_TYPES.flatMap((entity) =>
    EntityEventKindSchema.options.map((kind) => `${entity}.${kind}` as const),
  ),
  ...WRITE_EVENT_TYPES,
  ...OPERATIONAL_EVENT_TYPES,
]);

function nonEmpty<T>(items: readonly T[]): [T, ...T[]] {
  const [first, ...rest] = items;
  if (first === undefined) throw new Error('the event catalogue cannot be empty');
  return [first, ...rest];
}

/** Any change event (created, updated or deleted, of any entity), discriminated on `type`. */
export const ChangeEventSchema = z.discriminatedUnion(
  'type',
  nonEmpty(CHANGE_EVENT_TYPES.map((type) => EVENT_SCHEMAS[type])),
);

/** Any snapshot event, discriminated on `type`. */
export const SnapshotEventSchema = z.discriminatedUnion(
  'type',
  nonEmpty(SNAPSHOT_EVENT_TYPES.map((type) => EVENT_SCHEMAS[type])),
);

/** Any event change-bridge sends: change, snapshot or operational, discriminated on `type`. */
export const AnyEventSchema = z.discriminatedUnion(
  'type',
  nonEmpty(EventTypeSchema.options.map((type) => EVENT_SCHEMAS[type])),
);
