import {
  type RequestBody,
  SOFT_DELETE_SWEEP_INTERVAL_MS,
  updatedUtcFilter,
  type WindowedPollSpec,
} from '../poll-spec.ts';
import type { PollWindow } from '../windows.ts';

/**
 * The request of one page of the records updated in `window`, for operations that filter on
 * `UpdatedUtc` and nothing else. Pure.
 * @example windowRequest: updatedInWindow
 */
export function updatedInWindow(window: PollWindow, count: number): RequestBody {
  return {
    Limitation: { Count: count },
    UpdatedUtc: updatedUtcFilter(window),
  };
}

/**
 * As {@link updatedInWindow}, with the deleted records included (`ActivityStates` Active and
 * Deleted), for operations whose records carry their own deletion. Pure.
 * @example windowRequest: updatedInWindowWithDeleted
 */
export function updatedInWindowWithDeleted(window: PollWindow, count: number): RequestBody {
  return {
    Limitation: { Count: count },
    UpdatedUtc: updatedUtcFilter(window),
    ActivityStates: ['Active', 'Deleted'],
  };
}

/**
 * The sweep of a soft-deleted entity: every {@link SOFT_DELETE_SWEEP_INTERVAL_MS}, its stored
 * ids read by id under `idsKey`, the deleted ones included, so that a delete no window showed
 * is found and judged. Pure.
 * @example sweep: sweepWithDeleted('AccountNoteIds')
 */
export function sweepWithDeleted(idsKey: string): NonNullable<WindowedPollSpec['sweep']> {
  return {
    intervalMs: SOFT_DELETE_SWEEP_INTERVAL_MS,
    request: (ids, count) => ({
      Limitation: { Count: count },
      [idsKey]: [...ids],
      ActivityStates: ['Active', 'Deleted'],
    }),
  };
}
