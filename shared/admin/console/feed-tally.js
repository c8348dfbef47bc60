/**
 * The live feed's count of events per minute and type, for its chart: every event counted
 * once as the feed's answers bring it, whatever the feed keeps to show (its newest 500).
 */

const MINUTE_MS = 60_000;

/** @param {number} ms */
const minuteOf = (ms) => Math.floor(ms / MINUTE_MS) * MINUTE_MS;

/**
 * @param {{ minutes?: number, overlapMs?: number }} [options] `minutes` kept; `overlapMs`:
 *   how far back the feed asks again each time (ids seen that recently are remembered, so a
 *   re-sent event counts once)
 */
export function createFeedTally({ minutes = 30, overlapMs = 30_000 } = {}) {
  /** @type {Map<number, Map<string, number>>} */
  const perMinute = new Map();
  /** @type {Map<string, number>} */
  const recentIds = new Map();
  /** @type {number | undefined} */
  let completeFromMs;

  return {
    perMinute,
    /**
     * Counts the events of one feed answer not counted yet. `full`: the answer held as many
     * events as it may, so older ones since the last answer were left out: minutes before
     * the one after its oldest event are counted in part from then on.
     * @param {{ id: string, type: string, storedAt: string }[]} events
     * @param {boolean} full
     * @param {number} nowMs the server's time of the answer
     */
    add(events, full, nowMs) {
      let oldest = Number.POSITIVE_INFINITY;
      for (const event of events) {
        const at = Date.parse(event.storedAt);
        oldest = Math.min(oldest, at);
        if (recentIds.has(event.id)) continue;
        recentIds.set(event.id, at);
        const minute = minuteOf(at);
        let types = perMinute.get(minute);
        if (!types) {
          types = new Map();
          perMinute.set(minute, types);
        }
        types.set(event.type, (types.get(event.type) ?? 0) + 1);
      }
      if (full && events.length > 0)
        completeFromMs = Math.max(completeFromMs ?? 0, minuteOf(oldest) + MINUTE_MS);
      for (const [id, at] of recentIds) if (at < nowMs - overlapMs) recentIds.delete(id);
      const kept = minuteOf(nowMs) - minutes * MINUTE_MS;
      for (const minute of perMinute.keys()) if (minute < kept) perMinute.delete(minute);
    },
    /**
     * The minute from which the counts are whole, when some answer left events out; undefined
     * when every event since the first answer was counted.
     */
    completeFrom: () => completeFromMs,
  };
}

/**
 * Events per minute by type over the last `minutes` minutes, from counts per minute (epoch ms
 * of the minute's start) and type; the busiest types get their own series, the rest share
 * `other`. `total` is every event of the window.
 * @param {Map<number, Map<string, number>>} perMinute
 * @param {number} nowMs
 * @param {number} [minutes]
 */
export function eventsPerMinute(perMinute, nowMs, minutes = 30) {
  const start = Math.floor(nowMs / 60_000) * 60_000 - (minutes - 1) * 60_000;
  const within = [...perMinute].filter(
    ([minute]) => minute >= start && minute < start + minutes * 60_000,
  );
  /** @type {Map<string, number>} */
  const totals = new Map();
  for (const [, types] of within)
    for (const [type, count] of types) totals.set(type, (totals.get(type) ?? 0) + count);
  const top = [...totals.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([type]) => type);
  const series = totals.size > top.length ? [...top, 'other'] : top;
  /** @type {{ label: string, values: Record<string, number> }[]} */
  const buckets = Array.from({ length: minutes }, (_, index) => ({
    label: new Date(start + index * 60_000).toLocaleTimeString([], {
      hour: '2-digit',
      minute: '2-digit',
    }),
    values: {},
  }));
  for (const [minute, types] of within) {
    const values = buckets[Math.floor((minute - start) / 60_000)].values;
    for (const [type, count] of types) {
      const name = top.includes(type) ? type : 'other';
      values[name] = (values[name] ?? 0) + count;
    }
  }
  const total = [...totals.values()].reduce((sum, count) => sum + count, 0);
  return { buckets, series, total };
}
