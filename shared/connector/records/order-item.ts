import { z } from 'zod';
import { AmountSchema, DateTimeSchema, UuidSchema } from './common.ts';

/**
 * An order item, from the deprecated reservations/getAllItems. RevenueType, AccountingState
 * and the Data discriminator are plain strings: their full value sets are not shown.
 */
export const OrderItemSchema = z.looseObject({
  Id: UuidSchema,
  AccountId: UuidSchema,
  OrderId: UuidSchema,
  // Open items (returned by default) are on no bill yet and not closed: null is accepted.
  BillId: UuidSchema.nullable(),
  AccountingCategoryId: UuidSchema,
  Count: z.number().int(),
  Amount: AmountSchema,
  RevenueType: z.string(),
  ConsumedUtc: DateTimeSchema,
  ClosedUtc: DateTimeSchema.nullable(),
  AccountingState: z.string(),
  Data: z.looseObject({
    Discriminator: z.string(),
    // Only ProductOrder's ProductId is documented; other discriminators leave it out or null.
    Value: z.looseObject({ ProductId: UuidSchema.nullable().optional() }).nullable(),
  }),
});
/** An order item. */
export type OrderItem = z.infer<typeof OrderItemSchema>;
