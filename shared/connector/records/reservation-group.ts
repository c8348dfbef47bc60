import { z } from 'zod';
import { UuidSchema } from './common.ts';

/** A group of reservations. It carries no timestamps. */
export const ReservationGroupSchema = z.looseObject({
  Id: UuidSchema,
  // The contract gives "min length 1" and, in the same line, "may be empty": an empty
  // name is accepted so that such a group does not break a stream.
  Name: z.string(),
  ChannelManager: z.string().nullable().optional(),
  ChannelManagerGroupNumber: z.string().nullable().optional(),
  EnterpriseId: UuidSchema,
});
/** A group of reservations. */
export type ReservationGroup = z.infer<typeof ReservationGroupSchema>;
