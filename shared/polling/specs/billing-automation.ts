import {
  MINUTE_MS,
  PAGE_COUNT_MAX,
  type SnapshotPollSpec,
  UPDATED_UTC_ONLY,
} from '../poll-spec.ts';

/** Billing automations: no time filter exists, so each cycle lists all and diffs the snapshot. */
export const billingAutomationSpec: SnapshotPollSpec = {
  entityType: 'billingAutomation',
  strategy: 'snapshot',
  operation: 'billingAutomations/getAll',
  itemsKey: 'BillingAutomations',
  volatileFields: UPDATED_UTC_ONLY,
  defaultIntervalMs: 5 * MINUTE_MS,
  request: (count = PAGE_COUNT_MAX) => ({ Limitation: { Count: count } }),
};
