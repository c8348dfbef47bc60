import { z } from 'zod';
import { JsonPatchOperationSchema } from './diff.ts';
import {
  EntityEventKindSchema,
  type EntityType,
  EntityTypeSchema,
  ScopeSchema,
} from './entity-types.ts';
import { ConnectorSourceSchema, cloudEventSchema } from './envelope.ts';

/** Fields of `data` that every entity event has, whatever its entity and kind. */
function commonData<E extends z.ZodType<string>>(entityType: E) {
  return {
    entityType,
    entityId: z.string().min(1),
    scope: ScopeSchema,
    /** Top-level fields that changed, sorted; volatile fields (UpdatedUtc) excluded. */
    changedFields: z.array(z.string()),
    /** RFC 6902 patch from `previous` to `current`; left out of a thin event. */
    patch: z.array(JsonPatchOperationSchema).optional(),
    /** Present (true) when `previous` and `patch` were dropped to fit a transport limit. */
    truncated: z.literal(true).optional(),
  };
}

/**
 * The four event schemas of one entity type (`<entity>.created`, `.updated`, `.deleted`,
 * `.snapshot`), with `data.current` and `data.previous` checked by `record`.
 * `previous` is null on creates and snapshots (as `current` is on deletes), and optional
 * everywhere because a thin event drops it.
 * @example entityEventSchemas('customer', CustomerSchema).updated.parse(event)
 */
export function entityEventSchemas<E extends EntityType, R extends z.ZodType>(
  entityType: E,
  record: R,
) {
  const common = commonData(z.literal(entityType));
  return {
    created: cloudEventSchema(
      z.literal(`${entityType}.created` as const),
      ConnectorSourceSchema,
      z.object({
        ...common,
        change: z.literal('created'),
        current: record,
        previous: z.null().optional(),
      }),
    ),
    updated: cloudEventSchema(
      z.literal(`${entityType}.updated` as const),
      ConnectorSourceSchema,
      z.object({
        ...common,
        change: z.literal('updated'),
        current: record,
        previous: record.optional(),
      }),
    ),
    deleted: cloudEventSchema(
      z.literal(`${entityType}.deleted` as const),
      ConnectorSourceSchema,
      z.object({
        ...common,
        change: z.literal('deleted'),
        current: z.null(),
        previous: record.optional(),
      }),
    ),
    snapshot: cloudEventSchema(
      z.literal(`${entityType}.snapshot` as const),
      ConnectorSourceSchema,
      z.object({
        ...common,
        change: z.literal('snapshot'),
        current: record,
        previous: z.null().optional(),
      }),
    ),
  };
}

const AnyRecordSchema = z.record(z.string(), z.unknown());

/**
 * Any entity event of any entity type, with records checked only as JSON objects: the
 * shape event building and transport code work with. The catalogue's per-type schemas
 * check the records too.
 */
export const EntityEventSchema = cloudEventSchema(
  z.string().regex(/^[A-Za-z]+\.(created|updated|deleted|snapshot)$/),
  ConnectorSourceSchema,
  z.object({
    ...commonData(EntityTypeSchema),
    change: EntityEventKindSchema,
    current: AnyRecordSchema.nullable(),
    previous: AnyRecordSchema.nullable().optional(),
  }),
);

/** An entity event with untyped records; see {@link EntityEventSchema}. */
export type EntityEvent = z.infer<typeof EntityEventSchema>;
