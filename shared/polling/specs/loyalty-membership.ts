import {
  MINUTE_MS,
  SOFT_DELETE_SWEEP_INTERVAL_MS,
  UPDATED_UTC_ONLY,
  type WindowedPollSpec,
} from '../poll-spec.ts';
import { updatedInWindowWithDeleted } from './windowed-requests.ts';

/**
 * Loyalty memberships: windowed with deleted ones included. A deleted membership carries no
 * flag of its own, so the records of a non-empty page are classified by one extra request
 * (ActivityStates [Deleted] over their ids); a quiet window still costs one request.
 */
export const loyaltyMembershipSpec: WindowedPollSpec = {
  entityType: 'loyaltyMembership',
  strategy: 'windowed',
  operation: 'loyaltyMemberships/getAll',
  volatileFields: UPDATED_UTC_ONLY,
  defaultIntervalMs: MINUTE_MS,
  windowRequest: updatedInWindowWithDeleted,
  deletedAmong: (ids, count) => ({
    Limitation: { Count: count },
    LoyaltyMembershipIds: [...ids],
    ActivityStates: ['Deleted'],
  }),
  sweep: {
    intervalMs: SOFT_DELETE_SWEEP_INTERVAL_MS,
    request: (ids, count) => ({
      Limitation: { Count: count },
      LoyaltyMembershipIds: [...ids],
      ActivityStates: ['Active'],
    }),
  },
};
