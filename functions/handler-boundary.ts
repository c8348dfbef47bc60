import { describeThrown, loggableError } from '../shared/errors.ts';

/**
 * What a handler throws out to the Lambda runtime in place of `thrown`: an Error with the
 * original's message, name and stack, its cause copied as {@link loggableError} copies an error
 * (a cause that is not an Error as {@link describeThrown}'s text), and no other own field. The
 * runtime prints a thrown Error with its own enumerable fields (and Node's inspection its
 * cause), so an AWS SDK error escaping as it is would put its `$response` body, a
 * `SecretString` or a request's `AccessToken` in the function's log. A thrown value that is not
 * an Error becomes an Error with {@link describeThrown}'s text. Never throws.
 * @example throw escapingError(error)
 */
export function escapingError(thrown: unknown): Error {
  try {
    if (!(thrown instanceof Error)) return new Error(describeThrown(thrown));
    const { cause } = thrown;
    const copy = new Error(
      String(thrown.message),
      cause === undefined
        ? undefined
        : { cause: cause instanceof Error ? loggableError(cause) : describeThrown(cause) },
    );
    // As Error.prototype holds it: not enumerable, so no field of its own in a printed error.
    Object.defineProperty(copy, 'name', {
      value: String(thrown.name),
      writable: true,
      configurable: true,
      enumerable: false,
    });
    const { stack } = thrown;
    if (typeof stack === 'string') copy.stack = stack;
    return copy;
  } catch {
    return new Error(describeThrown(thrown));
  }
}

/**
 * `handler` with whatever it throws replaced by {@link escapingError}'s copy: what it answers
 * (a batch's `batchItemFailures` included) is unchanged, and an invocation that failed still
 * fails, with the same message. Every Lambda entry point in functions/ is wrapped in it.
 * @example export const handler = sanitizingEscapes(async (event: SQSEvent) => answer(event));
 */
export function sanitizingEscapes<A extends unknown[], R>(
  handler: (...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  return async (...args) => {
    try {
      return await handler(...args);
    } catch (error) {
      throw escapingError(error);
    }
  };
}
