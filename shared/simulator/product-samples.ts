import type { SimWorld } from './world.ts';

/** A product a client can price, with its time unit (the simulator prices every product by day). */
export interface ProductSample {
  productId: string;
  name: string;
  timeUnit: 'Day';
  /** Zone of the product's enterprise: a Day unit starts at its local midnight. */
  timeZone: string;
}

/**
 * The first `count` products of an enterprise (the AccessToken's, enterprises[0], by
 * default): what the banners print, so products/getPricing can be tried at once.
 * @example productSamples(world, 3)[0] // { productId: '…', name: 'Breakfast', timeUnit: 'Day', timeZone: 'Europe/Prague' }
 */
export function productSamples(
  world: SimWorld,
  count: number,
  enterpriseId = world.enterprises[0]?.Id,
): ProductSample[] {
  const enterprise = world.enterprises.find((candidate) => candidate.Id === enterpriseId);
  if (!enterprise) return [];
  return world.products
    .filter((product) => product.EnterpriseId === enterprise.Id)
    .slice(0, count)
    .map((product) => ({
      productId: product.Id,
      name: product.Name,
      timeUnit: 'Day',
      timeZone: enterprise.timeZone,
    }));
}

/**
 * One banner line per sample: id, time unit and where the unit starts, and the name.
 * @example formatProductSample(sample) // '<id>  Day (from local midnight, Europe/Prague)  Breakfast'
 */
export function formatProductSample(sample: ProductSample): string {
  return `${sample.productId}  ${sample.timeUnit} (from local midnight, ${sample.timeZone})  ${sample.name}`;
}
