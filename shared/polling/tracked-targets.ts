import { z } from 'zod';
import { splitCommaText } from '../comma-list.ts';
import { parseEnvironment } from '../env-issues.ts';
import { isKnownTimeZone } from '../time-zone.ts';
import type { ProductTarget } from './poll-context.ts';

/** An export id to follow: a uuid, as the Connector API gives ids. */
export const ExportIdSchema = z.guid({ message: 'must be an export id (uuid)' });

/**
 * A product to price: `productId` or `productId@Time/Zone` (the enterprise's IANA zone; UTC
 * when absent). Checked up front, so a typo is refused instead of failing every poll.
 * `showText`: whether a message shows the entry (a request's or a flag's, which its sender
 * typed) or only where it is (POLL_PRODUCT_IDS[2]: a variable's value may be a secret).
 */
function productTargetTextSchema(showText: boolean) {
  return z
    .string()
    .trim()
    .superRefine((text, context) => {
      const prefix = showText ? `${text}: ` : '';
      const [productId = '', timeZone, extra] = text.split('@');
      if (!z.guid().safeParse(productId).success)
        context.addIssue({ code: 'custom', message: `${prefix}the product id must be a uuid` });
      else if (extra !== undefined || (timeZone !== undefined && !isKnownTimeZone(timeZone)))
        context.addIssue({
          code: 'custom',
          message: `${prefix}after @ comes an IANA time zone such as Europe/Prague`,
        });
    });
}

/** A product to price as a request or a flag gives it; a message shows the entry at fault. */
export const ProductTargetTextSchema = productTargetTextSchema(true);

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
  POLL_PRODUCT_IDS: z
    .preprocess(splitCommaText, z.array(productTargetTextSchema(false)))
    .optional(),
});

/** The exports and products a deployment's connections follow, when the environment names any. */
export interface TrackedTargets {
  exportIds?: readonly string[];
  products?: readonly ProductTarget[];
}

/**
 * Reads `POLL_EXPORT_IDS` and `POLL_PRODUCT_IDS`; an empty or unset variable names none.
 * @throws ValidationError naming the variable, e.g. `POLL_PRODUCT_IDS[0]: the product id must be a uuid`,
 * never showing the value.
 */
export function trackedTargetsFromEnv(env: Record<string, string | undefined>): TrackedTargets {
  const parsed = parseEnvironment(TrackedTargetsEnvSchema, env);
  const exportIds = parsed.POLL_EXPORT_IDS ?? [];
  const products = productTargetsOf(parsed.POLL_PRODUCT_IDS ?? []);
  return {
    ...(exportIds.length > 0 ? { exportIds } : {}),
    ...(products.length > 0 ? { products } : {}),
  };
}

/**
 * The entity types among `entities` whose stream would poll nothing: export while `targets`
 * name no export, productPrice while they name no product. Pure.
 * @example untrackedEntityTypes(['customer', 'export'], {}) // ['export']
 */
export function untrackedEntityTypes(
  entities: readonly string[],
  targets: TrackedTargets,
): ('export' | 'productPrice')[] {
  const untracked: ('export' | 'productPrice')[] = [];
  if (entities.includes('export') && !targets.exportIds?.length) untracked.push('export');
  if (entities.includes('productPrice') && !targets.products?.length)
    untracked.push('productPrice');
  return untracked;
}

/**
 * Why the CONNECTOR_* connection's export or productPrice stream would poll nothing (see
 * {@link untrackedEntityTypes}). One line for each. Pure.
 * @example untrackedStreamWarnings(['customer', 'export'], {}) // ['export is polled, but …']
 */
export function untrackedStreamWarnings(
  entities: readonly string[],
  targets: TrackedTargets,
): string[] {
  return untrackedEntityTypes(entities, targets).map((type) =>
    type === 'export'
      ? 'export is polled (POLL_ENTITIES), but POLL_EXPORT_IDS names no export: the export stream of the CONNECTOR_* connection polls nothing (a connection added with --export-ids follows its own)'
      : 'productPrice is polled (POLL_ENTITIES), but POLL_PRODUCT_IDS names no product: the productPrice stream of the CONNECTOR_* connection polls nothing (a connection added with --product-ids follows its own)',
  );
}
