import { MINUTE_MS, UPDATED_UTC_ONLY, type WindowedPollSpec } from '../poll-spec.ts';
import { sweepWithDeleted, updatedInWindowWithDeleted } from './windowed-requests.ts';

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
  windowRequest: updatedInWindowWithDeleted,
  sweep: sweepWithDeleted('AccountNoteIds'),
};
