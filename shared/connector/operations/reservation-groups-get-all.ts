import { z } from 'zod';
import { LimitationSchema, TimeFilterIntervalSchema } from '../records/common.ts';
import { ReservationGroupSchema } from '../records/reservation-group.ts';
import { FILTER_MAX_ITEMS, idFilter, PageCursorSchema, requireSomeFilter } from './filters.ts';

/** The filters of reservationGroups/getAll; ReservationGroupIds is required without the others. */
export const RESERVATION_GROUP_FILTERS = [
  'ReservationGroupIds',
  'EnterpriseIds',
  'UpdatedUtc',
] as const;

/** Request of reservationGroups/getAll (without the envelope). */
export const ReservationGroupsGetAllRequestSchema = z
  .strictObject({
    Limitation: LimitationSchema,
    EnterpriseIds: idFilter().optional(),
    ReservationGroupIds: idFilter().optional(),
    UpdatedUtc: TimeFilterIntervalSchema.optional(),
  })
  .superRefine(requireSomeFilter('ReservationGroupIds', RESERVATION_GROUP_FILTERS));
/** Request of reservationGroups/getAll. */
export type ReservationGroupsGetAllRequest = z.input<typeof ReservationGroupsGetAllRequestSchema>;

/** Response of reservationGroups/getAll (at most 1000 groups). */
export const ReservationGroupsGetAllResponseSchema = z.looseObject({
  ReservationGroups: z.array(ReservationGroupSchema).max(FILTER_MAX_ITEMS),
  Cursor: PageCursorSchema,
});
/** Response of reservationGroups/getAll. */
export type ReservationGroupsGetAllResponse = z.infer<typeof ReservationGroupsGetAllResponseSchema>;
