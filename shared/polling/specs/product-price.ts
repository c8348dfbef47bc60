import { MINUTE_MS, type ProductPricePollSpec } from '../poll-spec.ts';

/** Product prices: configured products over a horizon of days (products/getPricing). */
export const productPriceSpec: ProductPricePollSpec = {
  entityType: 'productPrice',
  strategy: 'product-prices',
  operation: 'products/getPricing',
  volatileFields: [],
  defaultIntervalMs: 15 * MINUTE_MS,
};
