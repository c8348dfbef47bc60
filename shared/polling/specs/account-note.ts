import {
  MINUTE_MS,
  SOFT_DELETE_SWEEP_INTERVAL_MS,
  UPDATED_UTC_ONLY,
  updatedUtcFilter,
  type WindowedPollSpec,
} from '../poll-spec.ts';

/**
 * Account notes: windowed, deleted ones included. The record has no UpdatedUtc, so the window
 * end is the watermark (design.md, Records without UpdatedUtc).
 */
export const accountNoteSpec: WindowedPollSpec = {
  entityType: 'accountNote',
  strategy: 'windowed',
  operation: 'accountNotes/getAll',
  volatileFields: UPDATED_UTC_ONLY,
  defaultIntervalMs: MINUTE_MS,
  windowRequest: (window, count) => ({
    Limitation: { Count: count },
    UpdatedUtc: updatedUtcFilter(window),
    ActivityStates: ['Active', 'Deleted'],
  }),
  sweep: {
    intervalMs: SOFT_DELETE_SWEEP_INTERVAL_MS,
    request: (ids, count) => ({
      Limitation: { Count: count },
      AccountNoteIds: [...ids],
      ActivityStates: ['Active', 'Deleted'],
    }),
  },
};
