import {
  MINUTE_MS,
  UPDATED_UTC_ONLY,
  updatedUtcFilter,
  type WindowedPollSpec,
} from '../poll-spec.ts';

/**
 * Customers: windowed on UpdatedUtc, deleted ones included (IsActive false / ActivityState
 * Deleted), and every 15 minutes the ones deleted since on `DeletedUtc` (ActivityStates must
 * then hold Deleted), for a delete that does not move UpdatedUtc (connector-api.md leaves it open).
 */
export const customerSpec: WindowedPollSpec = {
  entityType: 'customer',
  strategy: 'windowed',
  operation: 'customers/getAll',
  volatileFields: UPDATED_UTC_ONLY,
  defaultIntervalMs: MINUTE_MS,
  windowRequest: (window, count) => ({
    Limitation: { Count: count },
    Extent: { Customers: true, Documents: false, Addresses: true },
    UpdatedUtc: updatedUtcFilter(window),
    ActivityStates: ['Active', 'Deleted'],
  }),
  deletions: {
    intervalMs: 15 * MINUTE_MS,
    request: (window, count) => ({
      Limitation: { Count: count },
      Extent: { Customers: true, Documents: false, Addresses: true },
      DeletedUtc: updatedUtcFilter(window),
      ActivityStates: ['Deleted'],
    }),
  },
};
