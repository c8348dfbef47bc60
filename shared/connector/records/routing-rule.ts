import { z } from 'zod';
import { DateTimeSchema, UuidSchema } from './common.ts';

/** Company relations a routing rule applies to. */
export const CompanyRelationSchema = z.enum(['PartnerCompany', 'TravelAgency']);
/** Company relation. */
export type CompanyRelation = z.infer<typeof CompanyRelationSchema>;

/** When a routing rule applies. */
export const RoutingRuleApplicabilitySchema = z.enum(['Always', 'PrepaidOnly']);
/** When a routing rule applies. */
export type RoutingRuleApplicability = z.infer<typeof RoutingRuleApplicabilitySchema>;

/** Which stay items a routing rule routes. */
export const RouteTypeSchema = z.enum(['AllStayItems', 'SelectedStayItems']);
/** Which stay items a routing rule routes. */
export type RouteType = z.infer<typeof RouteTypeSchema>;

/** A rule routing a company's stay items to another bill. */
export const RoutingRuleSchema = z.looseObject({
  Id: UuidSchema,
  EnterpriseId: UuidSchema,
  CompanyId: UuidSchema,
  CompanyRelation: CompanyRelationSchema,
  Applicability: RoutingRuleApplicabilitySchema,
  RouteType: RouteTypeSchema,
  ServiceId: UuidSchema.nullable().optional(),
  // Returned only when RouteType is SelectedStayItems; absent and null are both accepted.
  SelectedStayItems: z
    .looseObject({
      Nights: z.boolean(),
      CityTax: z.boolean(),
      ProductCategoryIds: z.array(UuidSchema).nullable().optional(),
    })
    .nullable()
    .optional(),
  CreatedUtc: DateTimeSchema,
  UpdatedUtc: DateTimeSchema,
});
/** A rule routing a company's stay items to another bill. */
export type RoutingRule = z.infer<typeof RoutingRuleSchema>;
