import { z } from 'zod';
import { CurrencyCodeSchema, UuidSchema } from '../records/common.ts';
import { OrderItemSchema } from '../records/order-item.ts';
import { idFilter } from './filters.ts';

/**
 * Request of reservations/getAllItems (deprecated; without the envelope). Omitted
 * AccountingStates: items in Open or Closed state.
 */
export const ReservationsGetAllItemsRequestSchema = z.strictObject({
  ReservationIds: idFilter(),
  // The item costs are converted to this currency.
  Currency: CurrencyCodeSchema.optional(),
  AccountingStates: z.array(z.string()).optional(),
});
/** Request of reservations/getAllItems. */
export type ReservationsGetAllItemsRequest = z.input<typeof ReservationsGetAllItemsRequestSchema>;

/** The items of one reservation; the accounting items field name is not shown (kept loose). */
export const ReservationItemsSchema = z.looseObject({
  ReservationId: UuidSchema,
  OrderItems: z.array(OrderItemSchema),
});
/** The items of one reservation. */
export type ReservationItems = z.infer<typeof ReservationItemsSchema>;

/** Response of reservations/getAllItems. */
export const ReservationsGetAllItemsResponseSchema = z.looseObject({
  Reservations: z.array(ReservationItemsSchema),
});
/** Response of reservations/getAllItems. */
export type ReservationsGetAllItemsResponse = z.infer<typeof ReservationsGetAllItemsResponseSchema>;
