import { settledOrAborted } from './concurrency.ts';

/**
 * `answer` (an undici request's), or a rejection with the signal's reason as soon as `signal`
 * aborts. undici settles a request aborted while its connection is still being opened only once
 * the connection attempt ends: a host lookup in flight (a name server that does not answer
 * holds it for the resolver's whole timeout) or a connect to an address that never answers
 * would hold a stop, or a timeout, that long. The request itself is not sent after the abort
 * (undici aborts it as its connection comes); a late answer is drained.
 * @example const response = await untilAborted(request(url, { dispatcher, signal }), signal);
 */
export function untilAborted<T extends { body: { dump(): Promise<void> } }>(
  answer: Promise<T>,
  signal: AbortSignal,
): Promise<T> {
  return settledOrAborted(answer, signal, { late: (late) => late.body.dump() });
}
