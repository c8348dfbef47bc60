import { MINUTE_MS, UPDATED_UTC_ONLY, type WindowedPollSpec } from '../poll-spec.ts';
import { updatedInWindow } from './windowed-requests.ts';

/**
 * Reservation groups: windowed (no UpdatedUtc on the record: the window end is the
 * watermark) plus a sweep, because a deleted group leaves no trace in any window.
 */
export const reservationGroupSpec: WindowedPollSpec = {
  entityType: 'reservationGroup',
  strategy: 'windowed',
  operation: 'reservationGroups/getAll',
  volatileFields: UPDATED_UTC_ONLY,
  defaultIntervalMs: MINUTE_MS,
  windowRequest: updatedInWindow,
  sweep: {
    intervalMs: 15 * MINUTE_MS,
    request: (ids, count) => ({ Limitation: { Count: count }, ReservationGroupIds: [...ids] }),
  },
};
