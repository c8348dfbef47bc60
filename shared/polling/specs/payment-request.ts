import { MINUTE_MS, UPDATED_UTC_ONLY, type WindowedPollSpec } from '../poll-spec.ts';
import { updatedInWindow } from './windowed-requests.ts';

/** Payment requests: windowed on UpdatedUtc, with a sweep as a safety net for removed ones. */
export const paymentRequestSpec: WindowedPollSpec = {
  entityType: 'paymentRequest',
  strategy: 'windowed',
  operation: 'paymentRequests/getAll',
  volatileFields: UPDATED_UTC_ONLY,
  defaultIntervalMs: MINUTE_MS,
  windowRequest: updatedInWindow,
  sweep: {
    intervalMs: 60 * MINUTE_MS,
    request: (ids, count) => ({ Limitation: { Count: count }, PaymentRequestIds: [...ids] }),
  },
};
