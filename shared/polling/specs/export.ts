import { MINUTE_MS, type TrackedIdsPollSpec, UPDATED_UTC_ONLY } from '../poll-spec.ts';

/** Exports: the configured export ids are fetched each cycle until they expire. */
export const exportSpec: TrackedIdsPollSpec = {
  entityType: 'export',
  strategy: 'tracked-ids',
  operation: 'exports/getAll',
  itemsKey: 'Exports',
  volatileFields: UPDATED_UTC_ONLY,
  defaultIntervalMs: MINUTE_MS,
  request: (ids) => ({ ExportIds: [...ids] }),
  isFinal: (record) => record.Status === 'Expired',
};
