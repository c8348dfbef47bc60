import {
  MINUTE_MS,
  UPDATED_UTC_ONLY,
  updatedUtcFilter,
  type WindowedPollSpec,
} from '../poll-spec.ts';

/** Accounting categories: windowed on UpdatedUtc, deleted ones included. */
export const accountingCategorySpec: WindowedPollSpec = {
  entityType: 'accountingCategory',
  strategy: 'windowed',
  operation: 'accountingCategories/getAll',
  volatileFields: UPDATED_UTC_ONLY,
  defaultIntervalMs: 5 * MINUTE_MS,
  windowRequest: (window, count) => ({
    Limitation: { Count: count },
    UpdatedUtc: updatedUtcFilter(window),
    ActivityStates: ['Active', 'Deleted'],
  }),
};
