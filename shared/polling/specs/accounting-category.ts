import { MINUTE_MS, UPDATED_UTC_ONLY, type WindowedPollSpec } from '../poll-spec.ts';
import { sweepWithDeleted, updatedInWindowWithDeleted } from './windowed-requests.ts';

/** Accounting categories: windowed on UpdatedUtc, deleted ones included. */
export const accountingCategorySpec: WindowedPollSpec = {
  entityType: 'accountingCategory',
  strategy: 'windowed',
  operation: 'accountingCategories/getAll',
  volatileFields: UPDATED_UTC_ONLY,
  defaultIntervalMs: 5 * MINUTE_MS,
  windowRequest: updatedInWindowWithDeleted,
  sweep: sweepWithDeleted('AccountingCategoryIds'),
};
