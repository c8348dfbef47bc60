/** Deliveries in flight to one endpoint unless its subscription says otherwise. */
export const ENDPOINT_CONCURRENCY_DEFAULT = 16;

/** What an endpoint's subscriptions set for it, as EndpointScheduler.run takes it. */
export interface EndpointSettings {
  maxConcurrency?: number;
  ratePerSecond?: number;
}

/**
 * The settings of an endpoint that several subscriptions post to (see endpointOfUrl): the
 * smallest `maxConcurrency` any of them sets and the smallest `rateLimitPerSecond` any of them
 * sets; one that sets none has no say (16 and no rate apply only when none sets one). Pure.
 * @example sharedEndpointSettings([{ maxConcurrency: 4 }, {}]) // { maxConcurrency: 4 }
 */
export function sharedEndpointSettings(
  subscriptions: Iterable<{ maxConcurrency?: number; rateLimitPerSecond?: number }>,
): EndpointSettings {
  let maxConcurrency: number | undefined;
  let ratePerSecond: number | undefined;
  for (const { maxConcurrency: max, rateLimitPerSecond: rate } of subscriptions) {
    if (max) maxConcurrency = Math.min(maxConcurrency ?? max, max);
    if (rate) ratePerSecond = Math.min(ratePerSecond ?? rate, rate);
  }
  return {
    ...(maxConcurrency === undefined ? {} : { maxConcurrency }),
    ...(ratePerSecond === undefined ? {} : { ratePerSecond }),
  };
}
