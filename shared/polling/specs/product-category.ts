import { MINUTE_MS, UPDATED_UTC_ONLY, type WindowedPollSpec } from '../poll-spec.ts';
import { updatedInWindow } from './windowed-requests.ts';

/** Product categories: windowed plus a sweep (a hard delete leaves no trace in a window). */
export const productCategorySpec: WindowedPollSpec = {
  entityType: 'productCategory',
  strategy: 'windowed',
  operation: 'productCategories/getAll',
  volatileFields: UPDATED_UTC_ONLY,
  defaultIntervalMs: 5 * MINUTE_MS,
  windowRequest: updatedInWindow,
  sweep: {
    intervalMs: 15 * MINUTE_MS,
    request: (ids, count) => ({ Limitation: { Count: count }, ProductCategoryIds: [...ids] }),
  },
};
