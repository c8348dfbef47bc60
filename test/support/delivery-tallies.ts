import type { DeliveryCounts, DeliveryTallies } from '../../shared/webhooks/delivery-counter.ts';

/**
 * The tallies of one stream's events detected at `detectedAt`, as a dispatcher batch adds them.
 * @example await counter.add(streamTallies('main:customer', now, { delivered: 40 }))
 */
export function streamTallies(
  streamId: string,
  detectedAt: number,
  counts: Partial<DeliveryCounts>,
): DeliveryTallies {
  return new Map([[streamId, new Map([[detectedAt, counts]])]]);
}
