import { z } from 'zod';
import { ValidationError } from '../errors.ts';

/**
 * The 13 entity types change-bridge watches, named as the Connector API names them, in
 * singular camelCase. They are the first half of every change event `type`.
 */
export const EntityTypeSchema = z.enum([
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

/** One of the 13 watched entity types. */
export type EntityType = z.infer<typeof EntityTypeSchema>;

/**
 * A list of entity types to poll, at least one, each once: a type named twice would be two
 * streams with one id, each polled and stored in turn.
 * @example EntityTypeListSchema.safeParse(['customer', 'customer']).success === false
 */
export const EntityTypeListSchema = z
  .array(EntityTypeSchema)
  .min(1)
  .superRefine((types, context) => {
    const repeated = types.filter((type, index) => types.indexOf(type) !== index);
    if (repeated.length > 0)
      context.addIssue({
        code: 'custom',
        message: `lists ${[...new Set(repeated)].join(', ')} more than once`,
      });
  });

/** Every entity type, in catalogue order. */
export const ENTITY_TYPES: readonly EntityType[] = EntityTypeSchema.options;

/** What happened to an entity between two polls: the second half of a change event `type`. */
export const ChangeKindSchema = z.enum(['created', 'updated', 'deleted']);

/** created, updated or deleted. */
export type ChangeKind = z.infer<typeof ChangeKindSchema>;

/**
 * The `data.change` of any entity event: a change kind, or `snapshot` for the full-state
 * events a resync emits.
 */
export const EntityEventKindSchema = z.enum([...ChangeKindSchema.options, 'snapshot']);

/** created, updated, deleted or snapshot. */
export type EntityEventKind = z.infer<typeof EntityEventKindSchema>;

/**
 * The tenant an event belongs to. A record names its own enterprise or chain where it has
 * one; otherwise the stream's scope (the connection's token scope) stands in.
 */
export const ScopeSchema = z.object({
  enterpriseId: z.string().min(1).optional(),
  chainId: z.string().min(1).optional(),
});

/** `{ enterpriseId?, chainId? }` of an event. */
export type Scope = z.infer<typeof ScopeSchema>;

/** A record as the Connector API returned it: a JSON object. */
export type EntityRecord = Readonly<Record<string, unknown>>;

function requiredText(entityType: EntityType, record: EntityRecord, field: string): string {
  const value = record[field];
  if (typeof value === 'string' && value.length > 0) return value;
  throw new ValidationError(`${entityType} record`, [
    { path: field, message: 'expected a non-empty string identifying the record' },
  ]);
}

/**
 * Reads the entity id of a record: `Id` for most entity types, `Code` for a tax
 * environment (which has no `Id`), and `<ProductId>:<TimeUnitStartUtc>` for a product
 * price (a derived record, one per product and time unit).
 *
 * Throws {@link ValidationError} naming the field when the id field is missing or empty.
 * @example entityIdOf('customer', { Id: 'c1', LastName: 'Doe' }) // 'c1'
 */
export function entityIdOf(entityType: EntityType, record: EntityRecord): string {
  switch (entityType) {
    case 'taxEnvironment':
      return requiredText(entityType, record, 'Code');
    case 'productPrice':
      return `${requiredText(entityType, record, 'ProductId')}:${requiredText(entityType, record, 'TimeUnitStartUtc')}`;
    default:
      return requiredText(entityType, record, 'Id');
  }
}

function optionalText(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/**
 * The scope of a record: `enterpriseId` from its `EnterpriseId` and `chainId` from its
 * `ChainId` when the record carries them; each missing one is taken from `fallbackScope`
 * (the stream's scope). Records without either (tax environments, exports, product
 * prices, account notes) therefore carry the stream's scope.
 *
 * The entity type is part of the signature so that callers never need to know which
 * record types carry which scope field; today every type reads the same two fields.
 * @example scopeOf('resource', { Id: 'r1', EnterpriseId: 'e1' }, { chainId: 'c1' }) // { enterpriseId: 'e1', chainId: 'c1' }
 */
export function scopeOf(
  _entityType: EntityType,
  record: EntityRecord,
  fallbackScope: Scope = {},
): Scope {
  const enterpriseId = optionalText(record.EnterpriseId) ?? fallbackScope.enterpriseId;
  const chainId = optionalText(record.ChainId) ?? fallbackScope.chainId;
  return {
    ...(enterpriseId === undefined ? {} : { enterpriseId }),
    ...(chainId === undefined ? {} : { chainId }),
  };
}
