import {
  MINUTE_MS,
  SOFT_DELETE_SWEEP_INTERVAL_MS,
  UPDATED_UTC_ONLY,
  updatedUtcFilter,
  type WindowedPollSpec,
} from '../poll-spec.ts';

/** Resource category image assignments: windowed on UpdatedUtc, deleted ones included. */
export const resourceCategoryImageAssignmentSpec: WindowedPollSpec = {
  entityType: 'resourceCategoryImageAssignment',
  strategy: 'windowed',
  operation: 'resourceCategoryImageAssignments/getAll',
  volatileFields: UPDATED_UTC_ONLY,
  defaultIntervalMs: 5 * MINUTE_MS,
  windowRequest: (window, count) => ({
    Limitation: { Count: count },
    UpdatedUtc: updatedUtcFilter(window),
    ActivityStates: ['Active', 'Deleted'],
  }),
  sweep: {
    intervalMs: SOFT_DELETE_SWEEP_INTERVAL_MS,
    request: (ids, count) => ({
      Limitation: { Count: count },
      ResourceCategoryImageAssignmentIds: [...ids],
      ActivityStates: ['Active', 'Deleted'],
    }),
  },
};
