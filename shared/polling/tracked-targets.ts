import { z } from 'zod';
import { splitCommaText } from '../comma-list.ts';
import { parseOrThrow } from '../errors.ts';
import { isKnownTimeZone } from '../time-zone.ts';
import type { ProductTarget } from './poll-context.ts';

/** An export id to follow: a uuid, as the Connector API gives ids. */
export const ExportIdSchema = z.guid({ message: 'must be an export id (uuid)' });

/**
 * A product to price: `productId` or `productId@Time/Zone` (the enterprise's IANA zone; UTC
 * when absent). Checked up front, so a typo is refused instead of failing every poll.
 */
export const ProductTargetTextSchema = z
  .string()
  .trim()
  .superRefine((text, context) => {
    const [productId = '', timeZone, extra] = text.split('@');
    if (!z.guid().safeParse(productId).success)
      context.addIssue({ code: 'custom', message: `${text}: the product id must be a uuid` });
    else if (extra !== undefined || (timeZone !== undefined && !isKnownTimeZone(timeZone)))
      context.addIssue({
        code: 'custom',
        message: `${text}: after @ comes an IANA time zone such as Europe/Prague`,
      });
  });

/** Parses checked `productId[@Time/Zone]` texts into targets. */
export function productTargetsOf(texts: readonly string[]): ProductTarget[] {
  return texts.map((text) => {
    const [productId = '', timeZone = 'UTC'] = text.trim().split('@');
    return { productId, timeZone };
  });
}

/** `POLL_EXPORT_IDS` and `POLL_PRODUCT_IDS` (design.md, Configuration): comma-separated lists. */
export const TrackedTargetsEnvSchema = z.object({
  POLL_EXPORT_IDS: z.preprocess(splitCommaText, z.array(ExportIdSchema)).optional(),
  POLL_PRODUCT_IDS: z.preprocess(splitCommaText, z.array(ProductTargetTextSchema)).optional(),
});

/** The exports and products a deployment's connections follow, when the environment names any. */
export interface TrackedTargets {
  exportIds?: readonly string[];
  products?: readonly ProductTarget[];
}

/**
 * Reads `POLL_EXPORT_IDS` and `POLL_PRODUCT_IDS`; an empty or unset variable names none.
 * @throws ValidationError naming the variable, e.g. `POLL_PRODUCT_IDS.0: … must be a uuid`.
 */
export function trackedTargetsFromEnv(env: Record<string, string | undefined>): TrackedTargets {
  const parsed = parseOrThrow(TrackedTargetsEnvSchema, env, 'environment');
  const exportIds = parsed.POLL_EXPORT_IDS ?? [];
  const products = productTargetsOf(parsed.POLL_PRODUCT_IDS ?? []);
  return {
    ...(exportIds.length > 0 ? { exportIds } : {}),
    ...(products.length > 0 ? { products } : {}),
  };
}

/**
 * Why a connection's export or productPrice stream would poll nothing: its entity type is
 * among `entities` while `targets` name no export (no product). One line for each. Pure.
 * @example untrackedStreamWarnings(['customer', 'export'], {}) // ['export is polled, but …']
 */
export function untrackedStreamWarnings(
  entities: readonly string[],
  targets: TrackedTargets,
): string[] {
  const warnings: string[] = [];
  if (entities.includes('export') && !targets.exportIds?.length)
    warnings.push(
      'export is polled (POLL_ENTITIES), but POLL_EXPORT_IDS names no export: the export stream of the CONNECTOR_* connection polls nothing (a connection added with --export-ids follows its own)',
    );
  if (entities.includes('productPrice') && !targets.products?.length)
    warnings.push(
      'productPrice is polled (POLL_ENTITIES), but POLL_PRODUCT_IDS names no product: the productPrice stream of the CONNECTOR_* connection polls nothing (a connection added with --product-ids follows its own)',
    );
  return warnings;
}
