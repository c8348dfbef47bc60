import type { EntityRecord, EntityType } from '../changes/entity-types.ts';
import type { OperationName, PaginatedOperationName } from '../connector/operations.ts';
import type { PollWindow } from './windows.ts';

/** A request body under construction; validated strictly by the client before it is sent. */
export type RequestBody = Record<string, unknown>;

/** Fields shared by every poll spec. */
interface PollSpecBase {
  entityType: EntityType;
  /** Top-level fields that never make a change on their own (design.md, Changes). */
  volatileFields: readonly string[];
  /** How often the stream is polled unless configured otherwise. */
  defaultIntervalMs: number;
}

/**
 * Windowed on UpdatedUtc (design.md, Windows). Deleted records come back in the window when
 * the operation can include them (ActivityStates, Extent.Inactive); otherwise a periodic
 * sweep (`sweep`) finds ids that vanished.
 */
export interface WindowedPollSpec extends PollSpecBase {
  strategy: 'windowed';
  operation: PaginatedOperationName;
  /** The request of one page of one window (Cursor is added by the paginator). */
  windowRequest(window: PollWindow, count: number): RequestBody;
  /**
   * For operations whose deleted records carry no flag (loyalty memberships): a request that
   * returns only the deleted ones among `ids`, so the page's changed records can be classified.
   */
  deletedAmong?(ids: readonly string[], count: number): RequestBody;
  /** Mark and sweep: a request for the stored ids that still exist; unreturned ids are deleted. */
  sweep?: { request(ids: readonly string[], count: number): RequestBody; intervalMs: number };
  /**
   * For operations that filter on deletion time (customers' `DeletedUtc`), in the place of a
   * sweep: a request for the records deleted in `window`, read every `intervalMs`, so that a
   * delete that does not move `UpdatedUtc` is found all the same.
   */
  deletions?: { request(window: PollWindow, count: number): RequestBody; intervalMs: number };
}

/** Full listing diffed against every stored snapshot (no time filter exists). */
export interface SnapshotPollSpec extends PollSpecBase {
  strategy: 'snapshot';
  operation: OperationName;
  /** Items key of the response. */
  itemsKey: string;
  request(count: number): RequestBody;
  /**
   * For a response that carries, beside the items, content they depend on (tax environments:
   * their taxations and tax rates): the items with that content folded in, so that a change
   * of it changes them. Unpaginated operations only.
   */
  withResponse?(
    records: readonly EntityRecord[],
    response: Readonly<Record<string, unknown>>,
  ): EntityRecord[];
}

/** A configured set of ids fetched by id each cycle (exports). */
export interface TrackedIdsPollSpec extends PollSpecBase {
  strategy: 'tracked-ids';
  operation: OperationName;
  itemsKey: string;
  request(ids: readonly string[]): RequestBody;
  /** A record in a final state is no longer tracked once its change is published. */
  isFinal(record: Record<string, unknown>): boolean;
}

/** Prices of configured products over a horizon of time units (products/getPricing). */
export interface ProductPricePollSpec extends PollSpecBase {
  strategy: 'product-prices';
  operation: 'products/getPricing';
}

/** One poll spec per entity type (shared/polling/specs/). */
export type PollSpec =
  | WindowedPollSpec
  | SnapshotPollSpec
  | TrackedIdsPollSpec
  | ProductPricePollSpec;

/** Minutes, for readable defaults. */
export const MINUTE_MS = 60_000;
/** Largest page the contract allows (Limitation.Count 1..1000). */
export const PAGE_COUNT_MAX = 1000;
/**
 * How often the streams whose deletes carry a flag (or, loyalty memberships, an ActivityState)
 * sweep their stored ids: connector-api.md does not say a soft delete moves `UpdatedUtc`, and
 * one that does not is in no window; the sweep reads it by id, and judges it.
 */
export const SOFT_DELETE_SWEEP_INTERVAL_MS = 60 * MINUTE_MS;
/** Default volatile fields: a record touched with no other change is not a change. */
export const UPDATED_UTC_ONLY: readonly string[] = ['UpdatedUtc'];

/** `{ StartUtc, EndUtc }` of a window, as the time filters take it. */
export function updatedUtcFilter(window: PollWindow): { StartUtc: string; EndUtc: string } {
  return { StartUtc: window.startUtc, EndUtc: window.endUtc };
}
