import { z } from 'zod';
import { UuidSchema, updateValue } from '../records/common.ts';
import {
  CompanyRelationSchema,
  RouteTypeSchema,
  RoutingRuleApplicabilitySchema,
  RoutingRuleSchema,
} from '../records/routing-rule.ts';
import { OptionalCursorSchema } from './filters.ts';

/** Most routing rule updates in one request, and most rules in one response. */
export const ROUTING_RULE_UPDATES_MAX_ITEMS = 1000;

/** One routing rule change: the rule and `{ Value }` wrappers for the fields to change. */
export const RoutingRuleUpdateSchema = z.strictObject({
  RoutingRuleId: UuidSchema,
  CompanyId: updateValue(UuidSchema).nullable().optional(),
  ServiceId: updateValue(UuidSchema).nullable().optional(),
  CompanyRelation: updateValue(CompanyRelationSchema).nullable().optional(),
  Applicability: updateValue(RoutingRuleApplicabilitySchema).nullable().optional(),
  RouteType: updateValue(RouteTypeSchema).nullable().optional(),
  // The contract lists the route type values for this plain string field; kept as given.
  AssignmentTargetType: RouteTypeSchema.optional(),
  SelectedStayItems: z
    .strictObject({
      Nights: updateValue(z.boolean()).nullable().optional(),
      CityTax: updateValue(z.boolean()).nullable().optional(),
      ProductCategoryIds: updateValue(z.array(UuidSchema).nullable()).nullable().optional(),
    })
    .nullable()
    .optional(),
});
/** One routing rule change. */
export type RoutingRuleUpdate = z.input<typeof RoutingRuleUpdateSchema>;

/** Request of routingRules/update (without the envelope): 1 to 1000 updates. */
export const RoutingRulesUpdateRequestSchema = z.strictObject({
  RoutingRuleUpdates: z.array(RoutingRuleUpdateSchema).min(1).max(ROUTING_RULE_UPDATES_MAX_ITEMS),
});
/** Request of routingRules/update. */
export type RoutingRulesUpdateRequest = z.input<typeof RoutingRulesUpdateRequestSchema>;

/** Response of routingRules/update: the updated rules (at most 1000). */
export const RoutingRulesUpdateResponseSchema = z.looseObject({
  RoutingRules: z.array(RoutingRuleSchema).max(ROUTING_RULE_UPDATES_MAX_ITEMS),
  Cursor: OptionalCursorSchema,
});
/** Response of routingRules/update. */
export type RoutingRulesUpdateResponse = z.infer<typeof RoutingRulesUpdateResponseSchema>;
