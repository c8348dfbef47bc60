import { percentile } from '../../bench/figures.ts';
import type { DeliveredChange } from './duplicate-ids.ts';

/** How long after their detection the webhooks were accepted, in seconds. */
export interface ArrivalLatency {
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/**
 * From detection (the event's `time`) to the first acceptance of each event id, over
 * `accepted` (redeliveries of an id left out): percentiles in seconds, undefined when none.
 * Pure.
 * @example arrivalLatency([{ id: 'e', time: '2026-01-01T00:00:00.000Z', acceptedAt: Date.UTC(2026, 0, 1, 0, 0, 2) }])?.p50 // 2
 */
export function arrivalLatency(
  accepted: readonly (Pick<DeliveredChange, 'id' | 'time'> & { acceptedAt: number })[],
): ArrivalLatency | undefined {
  const seen = new Set<string>();
  const seconds: number[] = [];
  for (const webhook of accepted) {
    if (seen.has(webhook.id)) continue;
    seen.add(webhook.id);
    seconds.push((webhook.acceptedAt - Date.parse(webhook.time)) / 1000);
  }
  if (seconds.length === 0) return undefined;
  seconds.sort((a, b) => a - b);
  return {
    p50: percentile(seconds, 50),
    p90: percentile(seconds, 90),
    p99: percentile(seconds, 99),
    max: seconds.at(-1)!,
  };
}
