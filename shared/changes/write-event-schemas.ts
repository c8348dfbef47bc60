import { z } from 'zod';
import { RestrictionConditionSchema } from '../connector/operations/restrictions-clear.ts';
import {
  LoyaltyProgramSchema,
  RoutingRuleSchema,
  VoucherSchema,
} from '../connector/records/index.ts';
import { JsonPatchOperationSchema } from './diff.ts';
import { ScopeSchema } from './entity-types.ts';
import { ConnectorSourceSchema, cloudEventSchema } from './envelope.ts';

/**
 * Events of entities no read operation returns, so only a write through the bridge
 * (POST /api/connector/v1/<entity>/<operation> on the admin API) can reveal them. Their
 * `data` has the shape of an entity event; `previous` is never known.
 */
function writtenEntityEvent<T extends string, E extends string, K extends string>(
  type: T,
  entityType: E,
  change: K,
  record: z.ZodType,
) {
  return cloudEventSchema(
    z.literal(type),
    ConnectorSourceSchema,
    z.object({
      entityType: z.literal(entityType),
      entityId: z.string().min(1),
      scope: ScopeSchema,
      change: z.literal(change),
      current: record,
      /** The fields the write set (for a creation: every field of the new record), sorted. */
      changedFields: z.array(z.string()),
      patch: z.array(JsonPatchOperationSchema).optional(),
    }),
  );
}

/** `loyaltyProgram.updated`: a loyalty program as loyaltyPrograms/update returned it. */
export const LoyaltyProgramUpdatedEventSchema = writtenEntityEvent(
  'loyaltyProgram.updated',
  'loyaltyProgram',
  'updated',
  LoyaltyProgramSchema,
);

/** `routingRule.updated`: a routing rule as routingRules/update returned it. */
export const RoutingRuleUpdatedEventSchema = writtenEntityEvent(
  'routingRule.updated',
  'routingRule',
  'updated',
  RoutingRuleSchema,
);

/** `voucher.created`: a voucher as vouchers/add returned it. */
export const VoucherCreatedEventSchema = writtenEntityEvent(
  'voucher.created',
  'voucher',
  'created',
  VoucherSchema,
);

/**
 * `restriction.cleared`: restrictions/clear succeeded for a service; `conditions` are the
 * cleared conditions as sent (restrictions have no id, so the subject is the service id).
 */
export const RestrictionClearedEventSchema = cloudEventSchema(
  z.literal('restriction.cleared'),
  ConnectorSourceSchema,
  z.object({
    entityType: z.literal('restriction'),
    entityId: z.string().min(1),
    scope: ScopeSchema,
    change: z.literal('cleared'),
    serviceId: z.string().min(1),
    conditions: z.array(RestrictionConditionSchema.loose()),
  }),
);

/** The schemas of the event types only a write through the bridge produces. */
export const WRITE_EVENT_SCHEMAS = {
  'loyaltyProgram.updated': LoyaltyProgramUpdatedEventSchema,
  'routingRule.updated': RoutingRuleUpdatedEventSchema,
  'voucher.created': VoucherCreatedEventSchema,
  'restriction.cleared': RestrictionClearedEventSchema,
} as const;

/** One of the write-only event types. */
export type WriteEventType = keyof typeof WRITE_EVENT_SCHEMAS;

/** Every write-only event type, in catalogue order. */
export const WRITE_EVENT_TYPES: readonly WriteEventType[] = [
  'loyaltyProgram.updated',
  'routingRule.updated',
  'voucher.created',
  'restriction.cleared',
];
