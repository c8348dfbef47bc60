import { z } from 'zod';
import { AmountSchema, DateTimeSchema, UuidSchema } from './common.ts';

/** The price of one age category in one time unit. */
export const AgeCategoryPriceSchema = z.looseObject({
  AgeCategoryId: UuidSchema,
  Price: AmountSchema,
});
/** The price of one age category in one time unit. */
export type AgeCategoryPrice = z.infer<typeof AgeCategoryPriceSchema>;

/**
 * The prices of one product in one time unit. A derived record, not in the API: one
 * products/getPricing response yields one per entry of `TimeUnitStartsUtc`
 * (see `productPricesFromPricing` in operations/products-get-pricing.ts).
 */
export const ProductPriceSchema = z.looseObject({
  ProductId: UuidSchema,
  TimeUnitStartUtc: DateTimeSchema,
  BaseAmountPrice: AmountSchema,
  AgeCategoryPrices: z.array(AgeCategoryPriceSchema),
});
/** The prices of one product in one time unit. */
export type ProductPrice = z.infer<typeof ProductPriceSchema>;
