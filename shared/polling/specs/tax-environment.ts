import { MINUTE_MS, type SnapshotPollSpec } from '../poll-spec.ts';

/** Tax environments: one unpaginated list, diffed against the stored snapshot. */
export const taxEnvironmentSpec: SnapshotPollSpec = {
  entityType: 'taxEnvironment',
  strategy: 'snapshot',
  operation: 'taxEnvironments/getAll',
  itemsKey: 'TaxEnvironments',
  volatileFields: [],
  defaultIntervalMs: 60 * MINUTE_MS,
  request: () => ({}),
};
