import { MINUTE_MS, UPDATED_UTC_ONLY, type WindowedPollSpec } from '../poll-spec.ts';
import { sweepWithDeleted, updatedInWindowWithDeleted } from './windowed-requests.ts';

/** Resource category image assignments: windowed on UpdatedUtc, deleted ones included. */
export const resourceCategoryImageAssignmentSpec: WindowedPollSpec = {
  entityType: 'resourceCategoryImageAssignment',
  strategy: 'windowed',
  operation: 'resourceCategoryImageAssignments/getAll',
  volatileFields: UPDATED_UTC_ONLY,
  defaultIntervalMs: 5 * MINUTE_MS,
  windowRequest: updatedInWindowWithDeleted,
  sweep: sweepWithDeleted('ResourceCategoryImageAssignmentIds'),
};
