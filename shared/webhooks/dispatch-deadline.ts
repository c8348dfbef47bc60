/**
 * How long a dispatcher invocation keeps, at the end, for the requests it started before its
 * deadline and for its writes (events, deliveries, deferrals, queue messages): the time
 * besides its requests that infra/props.ts allows a batch.
 */
export const DISPATCH_WRITES_MARGIN_MS = 10_000;

/**
 * The deadline of a batch given `remainingMs` of its Lambda invocation (the context's
 * getRemainingTimeInMillis()): one request's timeout and {@link DISPATCH_WRITES_MARGIN_MS}
 * before the invocation ends. Pure.
 * @example dispatchDeadline(0, 180_000, 10_000) === 160_000
 */
export function dispatchDeadline(
  nowMs: number,
  remainingMs: number,
  deliveryTimeoutMs: number,
): number {
  return nowMs + remainingMs - deliveryTimeoutMs - DISPATCH_WRITES_MARGIN_MS;
}
