import type { ActivityState, Limitation, TimeFilterInterval } from '../connector/records/index.ts';
import type { EntitySet, Entry, Partitions } from './entity-set.ts';
import { boundMs } from './instant.ts';

/**
 * An error answer of the simulated API: the status of the facts table in design.md and a
 * message naming the field at fault.
 */
export class SimApiError extends Error {
  override name = 'SimApiError';
  constructor(
    readonly status: number,
    message: string,
    readonly details: unknown = null,
  ) {
    super(message);
  }
}

/** What a request's AccessToken may see. */
export interface TokenScope {
  portfolio: boolean;
  chainIds: readonly string[];
  enterpriseIds: readonly string[];
}

/** The last time bounds parsed: a page walk tests every record against the same two. */
const parsedBounds = { start: { text: '', ms: 0 }, end: { text: '', ms: 0 } };

/**
 * {@link boundMs} of `text`, remembered for the last text of each bound (a walk asks millions of
 * times).
 */
function rememberedBoundMs(which: 'start' | 'end', text: string): number {
  const bound = parsedBounds[which];
  if (bound.text !== text) {
    bound.text = text;
    bound.ms = boundMs(text);
  }
  return bound.ms;
}

/** Half-open test `StartUtc <= t < EndUtc`; a missing bound is open (design.md, Time filters). */
export function inInterval(ms: number | null, interval: TimeFilterInterval | undefined): boolean {
  if (!interval) return true;
  if (ms === null) return false;
  if (interval.StartUtc && ms < rememberedBoundMs('start', interval.StartUtc)) return false;
  if (interval.EndUtc && ms >= rememberedBoundMs('end', interval.EndUtc)) return false;
  return true;
}

const ACTIVE_ONLY: readonly ActivityState[] = ['Active'];

/** ActivityStates filter; the default is Active only, so deleted records need Deleted asked for. */
export function activityAllows<T>(
  entry: Entry<T>,
  states: readonly ActivityState[] | undefined,
): boolean {
  const wanted = states && states.length > 0 ? states : ACTIVE_ONLY;
  return wanted.includes(entry.deletedMs === null ? 'Active' : 'Deleted');
}

/** The enterprises a request may read: the asked ones within the token's scope (all when omitted). */
export function allowedEnterprises(
  scope: TokenScope,
  asked: readonly string[] | undefined,
): Set<string> {
  const inScope = new Set(scope.enterpriseIds);
  return new Set(asked ? asked.filter((id) => inScope.has(id)) : scope.enterpriseIds);
}

/** The chains a request may read: the asked ones within the token's scope (all when omitted). */
export function allowedChains(
  scope: TokenScope,
  asked: readonly string[] | undefined,
): Set<string> {
  const inScope = new Set(scope.chainIds);
  return new Set(asked ? asked.filter((id) => inScope.has(id)) : scope.chainIds);
}

/**
 * One page of a set, newest first by creation order (Pagination rules 1-3): the entries
 * older than the cursor's record that pass `keep`, at most `Count` of them. With
 * `candidateKeys` (an id filter) only those records are considered, so a lookup by id does
 * not scan the whole set; with `within` (the enterprises or chains `keep` requires) only their
 * records are walked; with `updatedUtc` (the update window `keep` requires), a window that
 * holds few records (a live poll's) finds them by update time instead of walking the set.
 * @throws SimApiError 400 when the cursor identifies no record of this set: one never stored, one
 * deleted for good since, or one outside `within` (another enterprise's or chain's: an invalid
 * resource identifier for this token, connector-api.md Errors; a soft-deleted record still
 * exists and still anchors a page).
 */
export function pageOf<T>(
  set: EntitySet<T>,
  limitation: Limitation,
  keep: (entry: Entry<T>) => boolean,
  candidateKeys?: readonly string[],
  within?: Partitions,
  updatedUtc?: TimeFilterInterval,
): Entry<T>[] {
  let before = Number.POSITIVE_INFINITY;
  if (limitation.Cursor) {
    const anchor = set.get(limitation.Cursor);
    // A record outside the enterprises or chains read names nothing for this request either.
    if (!anchor || (within && !isWithin(anchor, within)))
      throw new SimApiError(
        400,
        'Limitation.Cursor: does not identify a record of this operation (unknown or deleted)',
      );
    before = anchor.index;
  }
  if (candidateKeys) {
    const found = new Set<Entry<T>>();
    for (const key of candidateKeys) {
      const entry = set.get(key);
      if (entry) found.add(entry);
    }
    return newestPassing([...found], before, keep, limitation.Count);
  }
  const updated = updatedUtc?.StartUtc
    ? set.updatedWithin(
        boundMs(updatedUtc.StartUtc),
        updatedUtc.EndUtc ? boundMs(updatedUtc.EndUtc) : Number.POSITIVE_INFINITY,
        Math.max(limitation.Count, set.storedCount >>> 4),
      )
    : undefined;
  if (updated) return newestPassing(updated, before, keep, limitation.Count);
  return set.page(keep, limitation.Count, Number.isFinite(before) ? before : undefined, within);
}

/** True when the entry belongs to one of the enterprises or chains of `within`. Pure. */
function isWithin<T>(entry: Entry<T>, within: Partitions): boolean {
  if ('enterpriseIds' in within)
    return entry.enterpriseId !== null && new Set(within.enterpriseIds).has(entry.enterpriseId);
  return new Set(within.chainIds).has(entry.chainId);
}

/** The entries older than `before` that pass `keep`, newest first, at most `count`. Pure. */
function newestPassing<T>(
  entries: readonly Entry<T>[],
  before: number,
  keep: (entry: Entry<T>) => boolean,
  count: number,
): Entry<T>[] {
  return entries
    .filter((entry) => entry.index < before && keep(entry))
    .sort((a, b) => b.index - a.index)
    .slice(0, count);
}

/**
 * Pagination rule 4: the id of the page's last (oldest) record, null when the page is empty or
 * `goesOn` is false (an answer that never returns data, such as one with no extent asked for).
 */
export function cursorAfter(
  page: readonly Entry<{ Id: string }>[],
  goesOn = page.length > 0,
): string | null {
  return goesOn ? (page[page.length - 1]?.record.Id ?? null) : null;
}

/** A filter list as a Set (undefined when the filter was not given). */
export function setOf<V>(list: readonly V[] | null | undefined): ReadonlySet<V> | undefined {
  return list ? new Set(list) : undefined;
}

/** True when `value` is in the filter set, or when no filter was given. */
export function matches<V>(filter: ReadonlySet<V> | undefined, value: V): boolean {
  return !filter || filter.has(value);
}

/** Removes the envelope fields so a strict operation schema can parse the rest. */
export function withoutEnvelope(body: Record<string, unknown>): Record<string, unknown> {
  const { ClientToken: _client, AccessToken: _access, Client: _name, ...rest } = body;
  return rest;
}
