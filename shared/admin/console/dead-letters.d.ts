/** Types of dead-letters.js (a browser module of the console, also tested under Node). */

/**
 * The dead deliveries of `entries` (newest first) whose event was not sent to the subscription
 * again since (a replay or a redelivery makes a new delivery); newest first.
 */
export function stillDeadLettered<T extends { delivery: { eventId: string; status: string } }>(
  entries: T[],
): T[];
