import type { ActivityState, Limitation, TimeFilterInterval } from '../connector/records/index.ts';
import type { EntitySet, Entry, Partitions } from './entity-set.ts';

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

/** Half-open test `StartUtc <= t < EndUtc`; a missing bound is open (design.md, Time filters). */
export function inInterval(ms: number | null, interval: TimeFilterInterval | undefined): boolean {
  if (!interval) return true;
  if (ms === null) return false;
  if (interval.StartUtc && ms < Date.parse(interval.StartUtc)) return false;
  if (interval.EndUtc && ms >= Date.parse(interval.EndUtc)) return false;
  return true;
}

/** ActivityStates filter; the default is Active only, so deleted records need Deleted asked for. */
export function activityAllows<T>(
  entry: Entry<T>,
  states: readonly ActivityState[] | undefined,
): boolean {
  const wanted = states && states.length > 0 ? states : ['Active'];
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
 * records are walked.
 * @throws SimApiError 400 when the cursor identifies no record ever returned by this set.
 */
export function pageOf<T>(
  set: EntitySet<T>,
  limitation: Limitation,
  keep: (entry: Entry<T>) => boolean,
  candidateKeys?: readonly string[],
  within?: Partitions,
): Entry<T>[] {
  let before = Number.POSITIVE_INFINITY;
  if (limitation.Cursor) {
    const anchor = set.locate(limitation.Cursor);
    if (!anchor)
      throw new SimApiError(400, 'Limitation.Cursor: does not identify a record of this operation');
    before = anchor.index;
  }
  const page: Entry<T>[] = [];
  if (candidateKeys) {
    const found = new Map<number, Entry<T>>();
    for (const key of candidateKeys) {
      const entry = set.get(key);
      if (entry && entry.index < before && keep(entry)) found.set(entry.index, entry);
    }
    return [...found.values()].sort((a, b) => b.index - a.index).slice(0, limitation.Count);
  }
  const start = Number.isFinite(before) ? before : undefined;
  const walk = within ? set.newestFirstWithin(within, start) : set.newestFirst(start);
  for (const entry of walk) {
    if (!keep(entry)) continue;
    page.push(entry);
    if (page.length >= limitation.Count) break;
  }
  return page;
}

/** Pagination rule 4: the id of the last (oldest) returned item, null only when none came back. */
export function cursorAfter(
  page: readonly Entry<{ Id: string }>[],
  returnedAny = page.length > 0,
): string | null {
  return returnedAny ? (page[page.length - 1]?.record.Id ?? null) : null;
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
