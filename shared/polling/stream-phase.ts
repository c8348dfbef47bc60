/** Intervals from which streams are spread over the interval instead of all falling due together. */
export const STAGGER_FROM_INTERVAL_MS = 30_000;

/**
 * The offsets of a connection's streams within their intervals, spread evenly over the
 * requests their polls make, so that they do not all spend the connector budget (200 requests
 * per 30 s) in one instant. Stream `i` takes `slots[i]` points of a grid of as many points as
 * all the streams' slots together, laid over its own interval `intervalsMs[i]`: a stream polled
 * in several slots (a product prices stream prices one product a slot, see
 * {@link pollSlotsOf}) takes points evenly apart from where its place in the order puts it
 * (the next free one where a point is taken), the others take the points left, in order. The
 * phase is a stream's first point. With one slot each, stream `i` of `n` is at `i/n` of its
 * interval. Intervals under 30 s poll nearly continuously and are not spread (0). Pure.
 * @example streamPhasesMs([1, 1, 1, 1], [60_000, 60_000, 60_000, 60_000]) // [0, 15_000, 30_000, 45_000]
 * @example streamPhasesMs([1, 2, 1], [60_000, 60_000, 60_000]) // [0, 15_000, 30_000]: the second also at 45_000
 */
export function streamPhasesMs(slots: readonly number[], intervalsMs: readonly number[]): number[] {
  const points = slots.reduce((sum, count) => sum + Math.max(1, count), 0);
  const taken = new Set<number>();
  const firstPoint = new Array<number>(slots.length).fill(0);
  const free = (from: number) => {
    let point = from % points;
    while (taken.has(point)) point = (point + 1) % points;
    taken.add(point);
    return point;
  };
  let place = 0;
  slots.forEach((count, index) => {
    if (count > 1)
      for (let slot = 0; slot < count; slot++) {
        const point = free(Math.round(place + (slot * points) / count));
        if (slot === 0) firstPoint[index] = point;
      }
    place += Math.max(1, count);
  });
  let cursor = 0;
  slots.forEach((count, index) => {
    if (count > 1) return;
    firstPoint[index] = free(cursor);
    cursor = firstPoint[index] + 1;
  });
  return intervalsMs.map((intervalMs, index) =>
    intervalMs < STAGGER_FROM_INTERVAL_MS || points === 0
      ? 0
      : Math.floor((firstPoint[index]! * intervalMs) / points),
  );
}

/**
 * In how many slots of its interval a stream polls: a product prices stream polled at 30 s or
 * more with several products prices one product a slot, the slots evenly apart (products/getPricing
 * takes one product a request, and a poll of them all would spend that many requests at one
 * instant); any other stream polls once. Pure.
 * @example pollSlotsOf({ spec: { strategy: 'product-prices' }, intervalMs: 60_000, products: [a, b, c] }) === 3
 */
export function pollSlotsOf(stream: {
  spec: { strategy: string };
  intervalMs: number;
  products?: readonly unknown[];
}): number {
  if (stream.spec.strategy !== 'product-prices' || stream.intervalMs < STAGGER_FROM_INTERVAL_MS)
    return 1;
  return Math.max(1, stream.products?.length ?? 0);
}

/**
 * The start of slot `slot` of the round of a stream's polls that begins at `roundStart` (its
 * phase plus a whole number of intervals), for a stream polled in `slots` slots an interval:
 * whole milliseconds, so that a round is exactly one interval long. Pure.
 */
function slotStart(roundStart: number, intervalMs: number, slots: number, slot: number): number {
  return roundStart + Math.floor((slot * intervalMs) / slots);
}

/**
 * When a stream polled in `slots` slots an interval ({@link pollSlotsOf}) and last polled at
 * `startedAt` is due again: its next slot at least half a slot away (so a late start never shifts
 * its slots). Pure.
 * @example nextSlotTime(125_000, 60_000, 5_000, 3) === 145_000
 */
export function nextSlotTime(
  startedAt: number,
  intervalMs: number,
  phaseMs: number,
  slots: number,
): number {
  const earliest = startedAt + intervalMs / slots / 2;
  const roundStart = phaseMs + Math.floor((earliest - phaseMs) / intervalMs) * intervalMs;
  for (let round = 0; ; round++)
    for (let slot = 0; slot < slots; slot++) {
      const at = slotStart(roundStart + round * intervalMs, intervalMs, slots, slot);
      if (at >= earliest) return at;
    }
}
