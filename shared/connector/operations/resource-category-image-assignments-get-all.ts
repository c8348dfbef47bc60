import { z } from 'zod';
import {
  ActivityStateSchema,
  LimitationSchema,
  TimeFilterIntervalSchema,
} from '../records/common.ts';
import { ResourceCategoryImageAssignmentSchema } from '../records/resource.ts';
import { idFilter, PageCursorSchema } from './filters.ts';

/**
 * Request of resourceCategoryImageAssignments/getAll (without the envelope). No markers are
 * shown: Limitation is required as on every paginated operation, filters are optional.
 */
export const ResourceCategoryImageAssignmentsGetAllRequestSchema = z.strictObject({
  Limitation: LimitationSchema,
  EnterpriseIds: idFilter().optional(),
  ResourceCategoryIds: idFilter().optional(),
  ResourceCategoryImageAssignmentIds: idFilter().optional(),
  UpdatedUtc: TimeFilterIntervalSchema.optional(),
  ActivityStates: z.array(ActivityStateSchema).optional(),
});
/** Request of resourceCategoryImageAssignments/getAll. */
export type ResourceCategoryImageAssignmentsGetAllRequest = z.input<
  typeof ResourceCategoryImageAssignmentsGetAllRequestSchema
>;

/** Response of resourceCategoryImageAssignments/getAll. */
export const ResourceCategoryImageAssignmentsGetAllResponseSchema = z.looseObject({
  ResourceCategoryImageAssignments: z.array(ResourceCategoryImageAssignmentSchema),
  Cursor: PageCursorSchema,
});
/** Response of resourceCategoryImageAssignments/getAll. */
export type ResourceCategoryImageAssignmentsGetAllResponse = z.infer<
  typeof ResourceCategoryImageAssignmentsGetAllResponseSchema
>;
