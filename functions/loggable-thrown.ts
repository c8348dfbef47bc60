import { describeThrown, loggableError } from '../shared/errors.ts';

/**
 * What a Lambda logs as `error` for a thrown value: an Error as {@link loggableError} copies it
 * (its name, message, stack, a few diagnostic fields such as `code` and `$metadata.requestId`,
 * and its causes the same way; the Powertools Logger would otherwise print every field, an AWS
 * SDK error's `$response` or a `SecretString` among them), anything else as
 * {@link describeThrown}'s text. The Logger prints a plain object field by field, and a thrown
 * object may hold a token; an `undefined` would drop the field from the line altogether.
 * @example logger.error('admin request failed', { error: loggableThrown(error) })
 */
export function loggableThrown(error: unknown): Error | string {
  return error instanceof Error ? loggableError(error) : describeThrown(error);
}
