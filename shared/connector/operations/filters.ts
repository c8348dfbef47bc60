import { z } from 'zod';
import { UuidSchema } from '../records/common.ts';

/** Most items of a list filter (connector-api.md, Limits: "Filter arrays 1 to 1000 items"). */
export const FILTER_MAX_ITEMS = 1000;

/**
 * A filter of identifiers: 1 to `max` uuids.
 * @example idFilter() // EnterpriseIds, CustomerIds, ...
 */
export function idFilter(max: number = FILTER_MAX_ITEMS) {
  return z.array(UuidSchema).min(1).max(max);
}

/** A filter of free strings (emails, names, codes): 1 to `max` items. */
export function stringFilter(max: number = FILTER_MAX_ITEMS) {
  return z.array(z.string()).min(1).max(max);
}

/**
 * The `Cursor` of a paginated response: the id of the oldest returned item, null only when
 * no data came back. Always present when the request carried a Limitation (Pagination rule 4).
 */
export const PageCursorSchema = UuidSchema.nullable();

/** The `Cursor` some non-paginated responses also carry ("described like the others"). */
export const OptionalCursorSchema = UuidSchema.nullable().optional();

/**
 * A check that at least one of `filters` is set, for operations whose `target` filter is
 * "required if no other filter is given". The issue names `target` and the other filters, each
 * as `labels` gives it (a filter that counts only with some tokens says so).
 * @example body.superRefine(requireSomeFilter('CustomerIds', ['CustomerIds', 'Emails']))
 */
export function requireSomeFilter(
  target: string,
  filters: readonly string[],
  labels: Readonly<Record<string, string>> = {},
) {
  return (body: Record<string, unknown>, ctx: z.RefinementCtx): void => {
    if (filters.some((field) => body[field] !== undefined && body[field] !== null)) return;
    const others = filters
      .filter((field) => field !== target)
      .map((field) => labels[field] ?? field)
      .join(', ');
    ctx.addIssue({
      code: 'custom',
      path: [target],
      message: `required when no other filter (${others}) is given`,
    });
  };
}
