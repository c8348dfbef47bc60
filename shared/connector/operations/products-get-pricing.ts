import { z } from 'zod';
import { AmountSchema, DateTimeSchema, isWithinMonths, UuidSchema } from '../records/common.ts';
import type { ProductPrice } from '../records/product-price.ts';
import { idFilter } from './filters.ts';

/**
 * The longest pricing interval of any time unit (24 months for a month unit; 100 hours and
 * 100 days are shorter). The unit itself is not in the request, so only this bound is checked.
 */
export const PRICING_MAX_MONTHS = 24;

/** Request of products/getPricing (without the envelope). */
export const ProductsGetPricingRequestSchema = z
  .strictObject({
    ProductId: UuidSchema,
    // Each must be exactly the UTC start of a time unit (local midnight for a day unit).
    FirstTimeUnitStartUtc: DateTimeSchema,
    LastTimeUnitStartUtc: DateTimeSchema,
    // Omitted: all enterprises in the token scope.
    EnterpriseIds: idFilter().optional(),
  })
  .superRefine((body, ctx) => {
    if (
      !isWithinMonths(body.FirstTimeUnitStartUtc, body.LastTimeUnitStartUtc, PRICING_MAX_MONTHS)
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['LastTimeUnitStartUtc'],
        message: `must not be before FirstTimeUnitStartUtc nor more than ${PRICING_MAX_MONTHS} months after it`,
      });
    }
  });
/** Request of products/getPricing. */
export type ProductsGetPricingRequest = z.input<typeof ProductsGetPricingRequestSchema>;

/** Response of products/getPricing: one price per time unit, in the order of TimeUnitStartsUtc. */
export const ProductsGetPricingResponseSchema = z
  .looseObject({
    ProductId: UuidSchema,
    TimeUnitStartsUtc: z.array(DateTimeSchema),
    BaseAmountPrices: z.array(AmountSchema),
    AgeCategoryPrices: z.array(
      z.looseObject({ AgeCategoryId: UuidSchema, Prices: z.array(AmountSchema) }),
    ),
  })
  .superRefine((response, ctx) => {
    // Prices are positional: a price list of another length cannot be matched to time units.
    const units = response.TimeUnitStartsUtc.length;
    if (response.BaseAmountPrices.length !== units) {
      ctx.addIssue({
        code: 'custom',
        path: ['BaseAmountPrices'],
        message: `must hold one price per time unit (${units})`,
      });
    }
    response.AgeCategoryPrices.forEach((category, index) => {
      if (category.Prices.length === units) return;
      ctx.addIssue({
        code: 'custom',
        path: ['AgeCategoryPrices', index, 'Prices'],
        message: `must hold one price per time unit (${units})`,
      });
    });
  });
/** Response of products/getPricing. */
export type ProductsGetPricingResponse = z.infer<typeof ProductsGetPricingResponseSchema>;

/**
 * Splits a parsed products/getPricing response into one {@link ProductPrice} per time unit.
 * Relies on the response schema's check that every price list has one entry per time unit.
 * @example productPricesFromPricing(response).map((price) => price.TimeUnitStartUtc)
 */
export function productPricesFromPricing(response: ProductsGetPricingResponse): ProductPrice[] {
  return response.TimeUnitStartsUtc.flatMap((start, unit) => {
    const base = response.BaseAmountPrices[unit];
    if (base === undefined) return [];
    return [
      {
        ProductId: response.ProductId,
        TimeUnitStartUtc: start,
        BaseAmountPrice: base,
        AgeCategoryPrices: response.AgeCategoryPrices.flatMap((category) => {
          const price = category.Prices[unit];
          return price === undefined
            ? []
            : [{ AgeCategoryId: category.AgeCategoryId, Price: price }];
        }),
      },
    ];
  });
}
