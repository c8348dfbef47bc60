import {
  MINUTE_MS,
  SOFT_DELETE_SWEEP_INTERVAL_MS,
  UPDATED_UTC_ONLY,
  updatedUtcFilter,
  type WindowedPollSpec,
} from '../poll-spec.ts';

/** Resources (spaces): windowed on UpdatedUtc; `Extent.Inactive` returns the deactivated ones. */
export const resourceSpec: WindowedPollSpec = {
  entityType: 'resource',
  strategy: 'windowed',
  operation: 'resources/getAll',
  volatileFields: UPDATED_UTC_ONLY,
  defaultIntervalMs: MINUTE_MS,
  windowRequest: (window, count) => ({
    Limitation: { Count: count },
    Extent: { Resources: true, Inactive: true },
    UpdatedUtc: updatedUtcFilter(window),
  }),
  sweep: {
    intervalMs: SOFT_DELETE_SWEEP_INTERVAL_MS,
    request: (ids, count) => ({
      Limitation: { Count: count },
      Extent: { Resources: true, Inactive: true },
      ResourceIds: [...ids],
    }),
  },
};
