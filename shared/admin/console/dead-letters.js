/** Which deliveries of a subscription are dead letters still: pure, no DOM. */

/**
 * The dead deliveries of `entries` (`GET /deliveries?subscription=…`, newest first) whose event
 * was not sent to the subscription again since: a replay or a redelivery makes a new delivery
 * of the event and leaves the dead one in the log as it was. Newest first. Pure.
 * @template {{ delivery: { eventId: string, status: string } }} T
 * @param {T[]} entries
 * @returns {T[]}
 * @example stillDeadLettered([{ delivery: { eventId: 'evt_a', status: 'delivered' } }, { delivery: { eventId: 'evt_a', status: 'dead' } }]) // []
 */
export function stillDeadLettered(entries) {
  /** @type {Set<string>} events with a newer delivery than the one at hand */
  const sentSince = new Set();
  /** @type {T[]} */
  const dead = [];
  for (const entry of entries) {
    const { eventId, status } = entry.delivery;
    if (status === 'dead' && !sentSince.has(eventId)) dead.push(entry);
    sentSince.add(eventId);
  }
  return dead;
}
