import type { StateStore, StreamFilter, StreamState } from '../state/state-store.ts';
import type { StreamListPosition } from './stream-cursor.ts';

/** Stream states after a position, as {@link readStatesAfter} reads them. */
export interface StatesAfter {
  /** The states after the position, in id order: `want` at most. */
  states: StreamState[];
  /** How many states the read found up to the position (the next cursor counts from it). */
  before: number;
}

/**
 * The first `want` stored stream states (of `filter`) whose ids sort after `position.after`,
 * in id order; every one when `want` is absent. The store's listing starts after that id (each
 * partition's Query begins there), so a page reads its own states, not those of the pages
 * before it again. `before` carries the position's count on (the cursor's `read`).
 * @example await readStatesAfter(store, {}, { after: 'hotel-7:resource', read: 21 }, 1001)
 */
export async function readStatesAfter(
  store: StateStore,
  filter: StreamFilter,
  position: StreamListPosition | undefined,
  want: number | undefined,
): Promise<StatesAfter> {
  const states = await store.listStreams(filter, {
    ...(want === undefined ? {} : { limit: want }),
    ...(position === undefined ? {} : { after: position.after }),
  });
  return { states, before: position?.read ?? 0 };
}

/**
 * The bytes `value` takes as JSON inside the JSON of a Lambda proxy result (its body is a JSON
 * string there, escaped once more), without the string's quotes. Pure.
 * @example escapedJsonBytes({ a: 1 }) === 9 // {\"a\":1}
 */
export function escapedJsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(JSON.stringify(value))) - 2;
}

/**
 * The first of `items` up to `limit` and, with `maxBytes`, while the JSON of the answer holding
 * them stays within it: `reservedBytes` for the rest of the answer, each item's JSON and a
 * comma, as {@link escapedJsonBytes} counts them. At least one item, so a page always moves
 * on. `more`: items were left out. Pure.
 * @example firstThatFit(['a', 'b', 'c'], { limit: 2 }) // { page: ['a', 'b'], more: true }
 */
export function firstThatFit<T>(
  items: readonly T[],
  bounds: { limit?: number; maxBytes?: number; reservedBytes?: number },
): { page: T[]; more: boolean } {
  const count = Math.min(items.length, bounds.limit ?? items.length);
  let taken = count;
  if (bounds.maxBytes !== undefined) {
    let bytes = bounds.reservedBytes ?? 0;
    for (let i = 0; i < count; i++) {
      bytes += escapedJsonBytes(items[i]) + (i === 0 ? 0 : 1);
      if (bytes > bounds.maxBytes && i > 0) {
        taken = i;
        break;
      }
    }
  }
  return { page: items.slice(0, taken), more: taken < items.length };
}
