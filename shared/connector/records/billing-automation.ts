import { z } from 'zod';
import { DateTimeSchema, UuidSchema } from './common.ts';

/** Most companies one billing automation lists. */
export const BILLING_AUTOMATION_MAX_COMPANIES = 1000;
/** Most assignments one billing automation holds. */
export const BILLING_AUTOMATION_MAX_ASSIGNMENTS = 20;
/** Most ids (rates, product categories, products, accounting categories) per assignment list. */
export const BILLING_ASSIGNMENT_MAX_IDS = 100;

/** Which reservations a billing automation applies to. */
export const PrepaymentSchema = z.enum(['All', 'Prepaid']);
/** Which reservations a billing automation applies to. */
export type Prepayment = z.infer<typeof PrepaymentSchema>;

/** Who owns the bill a billing automation routes to. */
export const AssignmentTargetTypeSchema = z.enum([
  'CompanyAsDetails',
  'CompanyAsOwner',
  'NoCompany',
]);
/** Who owns the routed bill. */
export type AssignmentTargetType = z.infer<typeof AssignmentTargetTypeSchema>;

/** What triggers a billing automation. */
export const TriggerTypeSchema = z.enum(['Continuous', 'Recurring', 'Legacy']);
/** What triggers a billing automation. */
export type TriggerType = z.infer<typeof TriggerTypeSchema>;

/** How routed items are aggregated into bills. */
export const BillAggregationTypeSchema = z.enum([
  'OnePerReservation',
  'AggregateByCustomer',
  'AggregateAll',
  'AggregatePerReservationGroup',
]);
/** How routed items are aggregated into bills. */
export type BillAggregationType = z.infer<typeof BillAggregationTypeSchema>;

/** Which consumption months a recurring automation routes. */
export const OrderItemConsumptionPeriodSchema = z.enum([
  'MonthBefore',
  'SameMonthAndMonthBefore',
  'SameMonth',
  'SameMonthAndMonthAfter',
  'MonthAfter',
]);
/** Which consumption months a recurring automation routes. */
export type OrderItemConsumptionPeriod = z.infer<typeof OrderItemConsumptionPeriodSchema>;

const idList = z.array(UuidSchema).max(BILLING_ASSIGNMENT_MAX_IDS).nullable().optional();

/** What one billing automation routes, for one service. */
export const BillingAutomationAssignmentSchema = z.looseObject({
  Id: UuidSchema,
  BillingAutomationId: UuidSchema,
  ServiceId: UuidSchema,
  RoutedItemTypes: z.looseObject({
    SpaceOrder: z.boolean(),
    CityTax: z.boolean(),
    AllProducts: z.boolean(),
    Deposits: z.boolean(),
    AdditionalExpenses: z.boolean(),
    AllCustomItems: z.boolean(),
  }),
  RateIds: idList,
  ProductCategoryIds: idList,
  ProductIds: idList,
  AccountingCategoryAssignments: z
    .array(
      z.looseObject({
        AccountingCategoryId: UuidSchema,
        ItemTypes: z.looseObject({ Products: z.boolean(), CustomItems: z.boolean() }),
      }),
    )
    .max(BILLING_ASSIGNMENT_MAX_IDS)
    .nullable()
    .optional(),
});
/** What one billing automation routes, for one service. */
export type BillingAutomationAssignment = z.infer<typeof BillingAutomationAssignmentSchema>;

/** A billing automation: routes items of companies' reservations to bills. It has no UpdatedUtc. */
export const BillingAutomationSchema = z.looseObject({
  Id: UuidSchema,
  EnterpriseId: UuidSchema,
  Name: z.string().min(1),
  Description: z.string().nullable().optional(),
  CompaniesWithRelations: z
    .array(
      z.looseObject({
        CompanyId: UuidSchema,
        CompanyRelations: z.looseObject({ PartnerCompany: z.boolean(), TravelAgency: z.boolean() }),
      }),
    )
    .max(BILLING_AUTOMATION_MAX_COMPANIES),
  Prepayment: PrepaymentSchema,
  AssignmentTargetType: AssignmentTargetTypeSchema,
  TriggerType: TriggerTypeSchema,
  BillAggregationType: BillAggregationTypeSchema,
  CreatedUtc: DateTimeSchema,
  // Both apply only when TriggerType is Recurring; absent and null both mean "not applicable".
  ProcessingStartOffset: z.string().nullable().optional(),
  OrderItemConsumptionPeriod: OrderItemConsumptionPeriodSchema.nullable().optional(),
  Assignments: z
    .array(BillingAutomationAssignmentSchema)
    .max(BILLING_AUTOMATION_MAX_ASSIGNMENTS)
    .nullable()
    .optional(),
});
/** A billing automation. */
export type BillingAutomation = z.infer<typeof BillingAutomationSchema>;
