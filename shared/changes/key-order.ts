/** An object's keys, and the same keys in code-unit order. */
export interface KeyOrder {
  /** The keys as the object enumerates them. */
  keys: readonly string[];
  /** The same keys in code-unit order (`Array.prototype.sort`'s default). */
  sorted: readonly string[];
}

/** Key lists kept for each number of keys: a record's nested objects of one size (a customer's
 * Address, Passport and IdentityCard have nine keys each) each keep theirs. */
const KEY_ORDERS_PER_LENGTH = 8;

/**
 * The last key orders worked out for each number of keys: records of one type, and their
 * nested objects, share their key lists, so most objects find theirs here instead of sorting.
 */
const keyOrders = new Map<number, KeyOrder[]>();

/** Whether two key lists hold the same keys in the same order. Pure. */
export function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The {@link KeyOrder} of `keys` (an object's own keys, in its order, not changed afterwards):
 * from a small cache when one of the last lists of that length was the same, else sorted and
 * kept (the oldest of that length dropped).
 * @example keyOrderOf(['b', 'a']).sorted // ['a', 'b']
 */
export function keyOrderOf(keys: string[]): KeyOrder {
  let known = keyOrders.get(keys.length);
  if (known === undefined) {
    known = [];
    keyOrders.set(keys.length, known);
  }
  for (const order of known) if (sameKeys(order.keys, keys)) return order;
  const order = { keys, sorted: [...keys].sort() };
  if (known.length >= KEY_ORDERS_PER_LENGTH) known.shift();
  known.push(order);
  return order;
}
