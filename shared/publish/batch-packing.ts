import { thinEvent } from '../changes/event.ts';
import type { PublishableEvent } from './publishable-event.ts';
import type { PublishFailure, PublishTargetName } from './publisher.ts';

/** One event turned into the entry a target takes, with its size by the target's formula. */
export interface PreparedEntry<E> {
  /** The event as sent: thin when the full one did not fit. */
  event: PublishableEvent;
  entry: E;
  bytes: number;
  thinned: boolean;
  /**
   * Ordering layer: every entry of layer n is accepted before any of layer n + 1 is sent
   * (SQS FIFO keeps one event per message group in each layer). Default 0.
   */
  layer: number;
}

/**
 * Builds the entry for `event` and checks it against `maxBytes`; an event too large is
 * rebuilt thin, and one still too large is a failure, so no entry is ever sent half.
 */
export function prepareWithinLimit<E>(
  event: PublishableEvent,
  maxBytes: number,
  target: PublishTargetName,
  build: (event: PublishableEvent) => { entry: E; bytes: number },
): PreparedEntry<E> | PublishFailure {
  const full = build(event);
  if (full.bytes <= maxBytes) return { event, ...full, thinned: false, layer: 0 };
  const thinned = thinEvent(event);
  const thin = build(thinned);
  if (thin.bytes <= maxBytes) return { event: thinned, ...thin, thinned: true, layer: 0 };
  return {
    eventId: event.id,
    eventType: event.type,
    target,
    code: 'EventTooLarge',
    message: `event is ${thin.bytes} bytes even without previous and patch; the limit is ${maxBytes}`,
  };
}

/**
 * Splits entries, in order, into batches of at most `maxEntries` entries and `maxBytes`
 * bytes. Every entry must itself fit in `maxBytes`.
 */
export function packBatches<T extends { bytes: number }>(
  entries: readonly T[],
  maxEntries: number,
  maxBytes: number,
): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  let currentBytes = 0;
  for (const entry of entries) {
    if (
      current.length === maxEntries ||
      (current.length > 0 && currentBytes + entry.bytes > maxBytes)
    ) {
      batches.push(current);
      current = [];
      currentBytes = 0;
    }
    current.push(entry);
    currentBytes += entry.bytes;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
