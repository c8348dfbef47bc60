import {
  MINUTE_MS,
  UPDATED_UTC_ONLY,
  updatedUtcFilter,
  type WindowedPollSpec,
} from '../poll-spec.ts';

/** Product categories: windowed plus a sweep (a hard delete leaves no trace in a window). */
export const productCategorySpec: WindowedPollSpec = {
  entityType: 'productCategory',
  strategy: 'windowed',
  operation: 'productCategories/getAll',
  volatileFields: UPDATED_UTC_ONLY,
  defaultIntervalMs: 5 * MINUTE_MS,
  windowRequest: (window, count) => ({
    Limitation: { Count: count },
    UpdatedUtc: updatedUtcFilter(window),
  }),
  sweep: {
    intervalMs: 15 * MINUTE_MS,
    request: (ids, count) => ({ Limitation: { Count: count }, ProductCategoryIds: [...ids] }),
  },
};
