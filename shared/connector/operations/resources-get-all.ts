import { z } from 'zod';
import { LimitationSchema, TimeFilterIntervalSchema } from '../records/common.ts';
import {
  ResourceCategoryAssignmentSchema,
  ResourceCategoryImageAssignmentSchema,
  ResourceCategorySchema,
  ResourceFeatureAssignmentSchema,
  ResourceFeatureSchema,
  ResourceSchema,
} from '../records/resource.ts';
import { idFilter, PageCursorSchema, stringFilter } from './filters.ts';

/** Request of resources/getAll (without the envelope). Omitted EnterpriseIds: all in scope. */
export const ResourcesGetAllRequestSchema = z.strictObject({
  Limitation: LimitationSchema,
  EnterpriseIds: idFilter().optional(),
  ResourceIds: idFilter().optional(),
  Names: stringFilter().optional(),
  Extent: z
    .strictObject({
      Resources: z.boolean().optional(),
      ResourceCategories: z.boolean().optional(),
      ResourceCategoryAssignments: z.boolean().optional(),
      ResourceCategoryImageAssignments: z.boolean().optional(),
      ResourceFeatures: z.boolean().optional(),
      ResourceFeatureAssignments: z.boolean().optional(),
      Inactive: z.boolean().optional(),
    })
    .optional(),
  CreatedUtc: TimeFilterIntervalSchema.optional(),
  UpdatedUtc: TimeFilterIntervalSchema.optional(),
});
/** Request of resources/getAll. */
export type ResourcesGetAllRequest = z.input<typeof ResourcesGetAllRequestSchema>;

/** Response of resources/getAll; every array but Resources is deprecated. */
export const ResourcesGetAllResponseSchema = z.looseObject({
  Resources: z.array(ResourceSchema).nullable().optional(),
  ResourceCategories: z.array(ResourceCategorySchema).nullable().optional(),
  ResourceCategoryAssignments: z.array(ResourceCategoryAssignmentSchema).nullable().optional(),
  ResourceCategoryImageAssignments: z
    .array(ResourceCategoryImageAssignmentSchema)
    .nullable()
    .optional(),
  ResourceFeatures: z.array(ResourceFeatureSchema).nullable().optional(),
  ResourceFeatureAssignments: z.array(ResourceFeatureAssignmentSchema).nullable().optional(),
  Cursor: PageCursorSchema,
});
/** Response of resources/getAll. */
export type ResourcesGetAllResponse = z.infer<typeof ResourcesGetAllResponseSchema>;
